package dev.wharf.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.wharf.http.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON handled as the text it was written in. The server stores and returns a JSON body byte for
 * byte, so the client must not round-trip it through a tree: that turns {@code 7.50} into {@code
 * 7.5}, {@code 1E+2} into {@code 100.0} and {@code 1e999999} into {@code "Infinity"}. Values are
 * located with a streaming parser and copied out of the original text instead.
 */
final class JsonText {
  private static final JsonFactory FACTORY = new JsonFactory();

  private JsonText() {}

  /** True when the text is exactly one JSON value the server would accept as a body. */
  static boolean isOneValue(String text) {
    // The server's own check, so a body that passes here is not refused there.
    return Json.isValid(text);
  }

  /** The text of a top-level field of a JSON object, as written; null when absent. */
  static String member(String json, String field) {
    try (JsonParser p = FACTORY.createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        if (name.equals(field)) {
          return valueText(json, p);
        }
        p.skipChildren();
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * For each object in the top-level array {@code arrayField} of a JSON object, its fields as
   * written, in order; empty when there is no such array.
   */
  static List<Map<String, String>> membersOfEach(String json, String arrayField) {
    List<Map<String, String>> all = new ArrayList<>();
    String array = member(json, arrayField);
    if (array == null) {
      return all;
    }
    try (JsonParser p = FACTORY.createParser(array)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        return all;
      }
      for (JsonToken t = p.nextToken(); t != null && t != JsonToken.END_ARRAY; t = p.nextToken()) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (t == JsonToken.START_OBJECT) {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            fields.put(name, valueText(array, p));
          }
        } else {
          p.skipChildren();
        }
        all.add(fields);
      }
    } catch (IOException e) {
      // A truncated answer: the elements read so far are all there is.
    }
    return all;
  }

  /** The value the parser is on, as written; the parser is left on its last token. */
  private static String valueText(String json, JsonParser p) throws IOException {
    int start = (int) p.currentTokenLocation().getCharOffset();
    p.skipChildren();
    return json.substring(start, valueEnd(json, start));
  }

  /**
   * Indents valid JSON two spaces a level, one member or element a line, without touching a token:
   * strings, numbers and names come out exactly as written.
   */
  static String pretty(String json) {
    StringBuilder b = new StringBuilder(json.length() * 2);
    int depth = 0;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      switch (c) {
        case '"' -> {
          int end = stringEnd(json, i);
          b.append(json, i, end);
          i = end - 1;
        }
        case '{', '[' -> {
          int next = skipSpace(json, i + 1);
          char close = c == '{' ? '}' : ']';
          if (next < json.length() && json.charAt(next) == close) {
            b.append(c).append(close);
            i = next;
          } else {
            b.append(c);
            newLine(b, ++depth);
          }
        }
        case '}', ']' -> {
          newLine(b, --depth);
          b.append(c);
        }
        case ',' -> {
          b.append(',');
          newLine(b, depth);
        }
        case ':' -> b.append(": ");
        case ' ', '\t', '\n', '\r' -> {}
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static void newLine(StringBuilder b, int depth) {
    b.append('\n').append("  ".repeat(Math.max(depth, 0)));
  }

  private static int skipSpace(String json, int i) {
    while (i < json.length() && " \t\n\r".indexOf(json.charAt(i)) >= 0) {
      i++;
    }
    return i;
  }

  /** The index just past the JSON value that starts at {@code start}. */
  private static int valueEnd(String json, int start) {
    char c = json.charAt(start);
    if (c == '"') {
      return stringEnd(json, start);
    }
    if (c == '{' || c == '[') {
      int depth = 0;
      for (int i = start; i < json.length(); i++) {
        char d = json.charAt(i);
        if (d == '"') {
          i = stringEnd(json, i) - 1;
        } else if (d == '{' || d == '[') {
          depth++;
        } else if ((d == '}' || d == ']') && --depth == 0) {
          return i + 1;
        }
      }
      return json.length();
    }
    // A number or a literal runs up to the next delimiter.
    int i = start;
    while (i < json.length() && ",}] \t\n\r".indexOf(json.charAt(i)) < 0) {
      i++;
    }
    return i;
  }

  /** The index just past the string whose opening quote is at {@code start}. */
  private static int stringEnd(String json, int start) {
    int i = start + 1;
    while (i < json.length() && json.charAt(i) != '"') {
      i += json.charAt(i) == '\\' ? 2 : 1;
    }
    return Math.min(i + 1, json.length());
  }
}
