package dev.wharf.cli;

import dev.wharf.http.Json;

/**
 * JSON handled as the text it was written in. The server stores and returns a JSON body byte for
 * byte, so the client must not round-trip it through a tree: that turns {@code 7.50} into {@code
 * 7.5}, {@code 1E+2} into {@code 100.0} and {@code 1e999999} into {@code "Infinity"}.
 */
final class JsonText {
  private JsonText() {}

  /** True when the text is exactly one JSON value the server would accept as a body. */
  static boolean isOneValue(String text) {
    // The server's own check, so a body that passes here is not refused there.
    return Json.isValid(text);
  }
}
