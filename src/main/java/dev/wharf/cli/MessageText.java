package dev.wharf.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Map;

/** How messages from the API look on a terminal. */
final class MessageText {
  private static final int BODY_WIDTH = 60;

  private MessageText() {}

  /**
   * The body on one line, cut to fit a table column. {@code raw} holds the message's fields as
   * the server sent them: a JSON body is shown from there, as stored.
   */
  static String bodyPreview(JsonNode m, Map<String, String> raw) {
    return Columns.cut(body(m, raw, false), BODY_WIDTH);
  }

  /** The body as text: JSON as stored or indented, text as is, bytes as a size note. */
  static String body(JsonNode m, Map<String, String> raw, boolean pretty) {
    JsonNode body = m.get("body");
    String type = m.path("content_type").asText("json");
    if (body == null || body.isNull() && !type.equals("json")) {
      return "";
    }
    return switch (type) {
      case "text" -> body.asText();
      case "bytes" -> "(" + base64Length(body.asText()) + " bytes, base64) " + body.asText();
      default -> {
        // The tree would re-serialise numbers (7.50 as 7.5): the text is what was stored.
        String stored = raw.getOrDefault("body", body.toString());
        yield pretty ? JsonText.pretty(stored) : stored;
      }
    };
  }

  private static int base64Length(String b64) {
    try {
      return java.util.Base64.getDecoder().decode(b64).length;
    } catch (IllegalArgumentException e) {
      return b64.length();
    }
  }

  static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  /** One message in full: its fields, headers and indented body. */
  static void printDetail(PrintWriter out, JsonNode m, Map<String, String> raw) {
    field(out, "id", text(m, "id"));
    field(out, "state", text(m, "state"));
    field(out, "attempt", text(m, "attempt"));
    field(out, "published_at", text(m, "published_at"));
    field(out, "visible_at", text(m, "visible_at"));
    field(out, "expires_at", text(m, "expires_at"));
    field(out, "key", text(m, "key"));
    field(out, "original_queue", text(m, "original_queue"));
    field(out, "dead_reason", text(m, "dead_reason"));
    field(out, "content_type", text(m, "content_type"));
    JsonNode headers = m.get("headers");
    if (headers != null && headers.isObject() && !headers.isEmpty()) {
      out.println("headers:");
      for (Iterator<Map.Entry<String, JsonNode>> it = headers.fields(); it.hasNext(); ) {
        var e = it.next();
        out.println("  " + Printable.of(e.getKey()) + ": " + Printable.of(e.getValue().asText()));
      }
    }
    JsonNode metadata = m.get("metadata");
    if (metadata != null && !metadata.isNull() && !metadata.isEmpty()) {
      out.println(
          "metadata: " + Printable.of(raw.getOrDefault("metadata", metadata.toString())));
    }
    out.println("body:");
    for (String line : body(m, raw, true).split("\n", -1)) {
      out.println("  " + Printable.of(line));
    }
    out.flush();
  }

  private static void field(PrintWriter out, String name, String value) {
    if (value != null) {
      out.printf("%-15s %s%n", name + ":", Printable.of(value));
    }
  }
}
