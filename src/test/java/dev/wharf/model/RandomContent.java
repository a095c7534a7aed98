package dev.wharf.model;

import dev.wharf.store.ContentType;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Payloads, headers and metadata for publishes, from the run's own {@link Random}. Each kind of
 * content a store could mangle comes often: empty bodies, bytes that are not UTF-8 (a column read
 * back as text would change them), text beyond ASCII, header names that differ only in case and
 * come in no sorted order (a store that sorts or folds them would show it).
 */
final class RandomContent {
  private static final List<String> HEADER_NAMES =
      List.of("X-Trace", "x-trace", "Content-Type", "zeta", "Alpha", "X-Ünïcode");
  private static final List<String> HEADER_VALUES =
      List.of("", "1", "a b", "ünïcode ☃", "\"quoted\"", "x,y;z=1");
  private static final List<String> METADATA = List.of(
      "{}", "{\"tenant\":\"t1\"}", "{\"z\":1,\"a\":[true,null,2.5]}", "{\"s\":\"é\\n☃\"}");

  private final Random random;
  private int made;

  RandomContent(Random random) {
    this.random = random;
  }

  ContentType type() {
    return ContentType.values()[random.nextInt(ContentType.values().length)];
  }

  /** A body of the given kind; each different from the last so a replacement shows. */
  byte[] payload(ContentType type) {
    made++;
    return switch (type) {
      case JSON -> (random.nextBoolean() ? "\"m" + made + "\"" : "{\"n\":" + made + ",\"u\":\"ü\"}")
          .getBytes(StandardCharsets.UTF_8);
      case TEXT -> random.nextInt(6) == 0 ? new byte[0]
          : ("text " + made + (random.nextBoolean() ? " ✓ ü\r\n" : ""))
              .getBytes(StandardCharsets.UTF_8);
      case BYTES -> bytes();
    };
  }

  private byte[] bytes() {
    if (random.nextInt(5) == 0) {
      return new byte[0];
    }
    byte[] b = new byte[1 + random.nextInt(12)];
    random.nextBytes(b);
    // A lone continuation byte and a NUL: never valid UTF-8 text as a whole.
    b[0] = (byte) 0x80;
    b[b.length - 1] = 0;
    b[b.length / 2] = (byte) (made & 0xff);
    return b;
  }

  Map<String, String> headers() {
    int n = random.nextInt(4) == 0 ? 0 : random.nextInt(4);
    Map<String, String> h = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      h.put(pick(HEADER_NAMES), pick(HEADER_VALUES));
    }
    return h;
  }

  /** A JSON object as text, or null; kept as written, key order and spacing included. */
  String metadata() {
    return random.nextInt(3) == 0 ? null : pick(METADATA);
  }

  private String pick(List<String> from) {
    return from.get(random.nextInt(from.size()));
  }
}
