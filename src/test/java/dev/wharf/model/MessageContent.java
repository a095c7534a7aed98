package dev.wharf.model;

import dev.wharf.core.Publish;
import dev.wharf.store.ContentType;
import dev.wharf.store.Message;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * What a publisher hands over and a consumer must get back unchanged: the payload's kind and
 * bytes, the headers in their order, the metadata text. Kept in comparable forms (hex bytes,
 * headers as a list) so a mismatch prints both sides and record equality compares them.
 *
 * @param headers each header as {@code name: value}, in the order the publisher gave them
 */
record MessageContent(ContentType type, String payloadHex, List<String> headers, String metadata) {

  static MessageContent of(Publish p) {
    return new MessageContent(p.contentType(), hex(p.payload()), lines(p.headers()), p.metadata());
  }

  static MessageContent of(Message m) {
    return new MessageContent(m.contentType(), hex(m.payload()), lines(m.headers()), m.metadata());
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  private static List<String> lines(Map<String, String> headers) {
    List<String> out = new ArrayList<>();
    if (headers != null) {
      headers.forEach((name, value) -> out.add(name + ": " + value));
    }
    return out;
  }

  /** Short enough for a trace line; the hex is what tells two bodies apart. */
  String describe() {
    String body = payloadHex.length() > 24 ? payloadHex.substring(0, 24) + "..." : payloadHex;
    return type.wire() + ":" + body + (headers.isEmpty() ? "" : " h" + headers)
        + (metadata == null ? "" : " md=" + metadata);
  }
}
