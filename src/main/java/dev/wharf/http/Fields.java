package dev.wharf.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.wharf.core.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Strict, typed reads of one JSON object: unknown fields and wrong types are 400s naming the field
 * by its path ({@code messages[2].delay}). Absent and null both read as null.
 */
public final class Fields {
  private final ObjectNode obj;
  private final String path;

  private Fields(ObjectNode obj, String path) {
    this.obj = obj;
    this.path = path;
  }

  /** Reads {@code obj}, rejecting any field not in {@code allowed}. */
  public static Fields of(ObjectNode obj, Set<String> allowed) {
    return of(obj, "", allowed);
  }

  public static Fields of(ObjectNode obj, String path, Set<String> allowed) {
    for (var it = obj.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!allowed.contains(name)) {
        throw ApiError.invalidBody("unknown field \"" + path + name + "\"");
      }
    }
    return new Fields(obj, path);
  }

  public boolean has(String name) {
    return obj.has(name);
  }

  /** Present with an explicit JSON null. */
  public boolean isNull(String name) {
    JsonNode n = obj.get(name);
    return n != null && n.isNull();
  }

  public JsonNode node(String name) {
    return obj.get(name);
  }

  public String name(String field) {
    return path + field;
  }

  public Integer integer(String name) {
    JsonNode n = value(name);
    if (n == null) {
      return null;
    }
    if (!n.isIntegralNumber()) {
      throw wrongType(name, "an integer");
    }
    if (!n.canConvertToInt()) {
      // An integer all the same: say it is out of range, not of the wrong kind.
      throw ApiError.invalidBody(name(name) + " is out of range, got " + n.asText());
    }
    return n.intValue();
  }

  public Boolean bool(String name) {
    JsonNode n = value(name);
    if (n == null) {
      return null;
    }
    if (!n.isBoolean()) {
      throw wrongType(name, "true or false");
    }
    return n.booleanValue();
  }

  public String string(String name) {
    JsonNode n = value(name);
    if (n == null) {
      return null;
    }
    if (!n.isTextual()) {
      throw wrongType(name, "a string");
    }
    return text(name(name), n.textValue());
  }

  /**
   * A string as stored: one holding half a surrogate pair (a JSON escape can spell one) would be
   * stored as {@code ?}, and two different keys or headers would become one.
   */
  public static String text(String field, String s) {
    int at = Utf8.loneSurrogate(s);
    if (at >= 0) {
      throw ApiError.invalidBody(
          field + " holds half a surrogate pair (\\u" + String.format("%04x", (int) s.charAt(at))
              + "), which is not a character");
    }
    return s;
  }

  /** Every string of a tree, field names included, as {@link #text}. */
  private static void texts(String field, JsonNode n) {
    if (n.isTextual()) {
      text(field, n.textValue());
    } else if (n.isObject()) {
      for (var it = n.fields(); it.hasNext(); ) {
        var e = it.next();
        text(field, e.getKey());
        texts(field + "." + e.getKey(), e.getValue());
      }
    } else if (n.isArray()) {
      for (int i = 0; i < n.size(); i++) {
        texts(field + "[" + i + "]", n.get(i));
      }
    }
  }

  /** A duration string ({@code 30s}) or a whole number of seconds. */
  public Duration duration(String name) {
    JsonNode n = value(name);
    if (n == null) {
      return null;
    }
    Duration d;
    // The ranges are the core's, each field's own: one above it is told that range at once.
    if (n.isIntegralNumber()) {
      if (n.bigIntegerValue().signum() < 0) {
        throw ApiError.invalidBody(name(name) + " must not be negative, got " + n.asText());
      }
      d = Durations.parse(n.bigIntegerValue() + "s");
    } else if (n.isTextual()) {
      try {
        d = Durations.parse(n.textValue());
      } catch (Durations.NegativeException e) {
        throw ApiError.invalidBody(name(name) + " " + e.getMessage());
      } catch (IllegalArgumentException e) {
        throw ApiError.invalidBody(
            name(name) + " is not a duration such as \"30s\": \"" + n.textValue() + "\"");
      }
    } else {
      throw wrongType(name, "a duration such as \"30s\"");
    }
    return d;
  }

  public List<String> strings(String name) {
    JsonNode n = value(name);
    if (n == null) {
      return null;
    }
    if (!n.isArray()) {
      throw wrongType(name, "an array of strings");
    }
    List<String> out = new ArrayList<>(n.size());
    for (JsonNode e : n) {
      if (!e.isTextual()) {
        throw wrongType(name, "an array of strings");
      }
      out.add(text(name(name), e.textValue()));
    }
    return out;
  }

  public Map<String, String> stringMap(String name) {
    JsonNode n = value(name);
    if (n == null) {
      return null;
    }
    if (!n.isObject()) {
      throw wrongType(name, "an object of strings");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (var it = n.fields(); it.hasNext(); ) {
      var e = it.next();
      if (!e.getValue().isTextual()) {
        throw ApiError.invalidBody(name(name) + "." + e.getKey() + " must be a string");
      }
      text(name(name), e.getKey());
      out.put(e.getKey(), text(name(name) + "." + e.getKey(), e.getValue().textValue()));
    }
    return out;
  }

  public ObjectNode object(String name) {
    JsonNode n = value(name);
    if (n == null) {
      return null;
    }
    if (!n.isObject()) {
      throw wrongType(name, "an object");
    }
    texts(name(name), n);
    return (ObjectNode) n;
  }

  private JsonNode value(String name) {
    JsonNode n = obj.get(name);
    return n == null || n.isNull() ? null : n;
  }

  private ApiError wrongType(String name, String what) {
    return ApiError.invalidBody(name(name) + " must be " + what);
  }
}
