package dev.wharf.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.wharf.core.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One map of the config file, read key by key. Every reader records the key as known and reports a
 * bad value under its path, returning the default so reading goes on and every problem in the file
 * is found in one pass. {@link #rejectUnknown()} then names the keys nobody asked for.
 */
final class ConfigNode {
  private final ObjectNode node;
  private final String path;
  private final Problems problems;
  private final Set<String> known = new LinkedHashSet<>();

  private ConfigNode(ObjectNode node, String path, Problems problems) {
    this.node = node;
    this.path = path;
    this.problems = problems;
  }

  /** A map at {@code path}; null or absent reads as an empty map, anything else is reported. */
  static ConfigNode of(JsonNode value, String path, Problems problems) {
    if (value instanceof ObjectNode obj) {
      return new ConfigNode(obj, path, problems);
    }
    if (value != null && !value.isNull() && !value.isMissingNode()) {
      problems.add(path, "expected a map, got " + describe(value));
    }
    return new ConfigNode(new ObjectNode(null), path, problems);
  }

  String path() {
    return path;
  }

  /** The path of a key below this node; a key that is empty or holds a dot is quoted. */
  String pathOf(String key) {
    return pathOf(path, key);
  }

  /**
   * The path of {@code key} below {@code parent}, as every problem names it: the same key must
   * have the same path whichever reader reports it, so problems sort into the file's order.
   */
  static String pathOf(String parent, String key) {
    String k = key.isEmpty() || key.contains(".") ? "\"" + key + "\"" : key;
    return parent.isEmpty() ? k : parent + "." + k;
  }

  Problems problems() {
    return problems;
  }

  boolean has(String key) {
    JsonNode v = node.get(key);
    return v != null && !v.isNull();
  }

  /** The raw value (null when absent), marking the key as known. */
  JsonNode raw(String key) {
    known.add(key);
    JsonNode v = node.get(key);
    return v == null || v.isNull() ? null : v;
  }

  ConfigNode map(String key) {
    return of(raw(key), pathOf(key), problems);
  }

  /** Keys in file order; the caller reads each entry (it marks them all as known). */
  Map<String, JsonNode> entries() {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    node.fields()
        .forEachRemaining(
            e -> {
              known.add(e.getKey());
              out.put(e.getKey(), e.getValue());
            });
    return out;
  }

  /** Reports a problem with the value at {@code key}, which a reader checked itself. */
  void problem(String key, String message) {
    problems.add(pathOf(key), message);
  }

  String string(String key, String dflt) {
    JsonNode v = raw(key);
    if (v == null) {
      return dflt;
    }
    // Numbers and booleans are accepted as text: an interpolated token may well be all digits.
    if (v.isValueNode() && !v.isBinary()) {
      return v.asText();
    }
    problems.add(pathOf(key), "expected a string, got " + describe(v));
    return dflt;
  }

  int integer(String key, int dflt, int min, int max) {
    JsonNode v = raw(key);
    if (v == null) {
      return dflt;
    }
    Long n = null;
    if (v.isIntegralNumber() && v.canConvertToLong()) {
      n = v.longValue();
    } else if (v.isTextual() && v.textValue().trim().matches("-?\\d{1,12}")) {
      n = Long.parseLong(v.textValue().trim());
    } else if (v.isIntegralNumber()
        || (v.isTextual() && v.textValue().trim().matches("-?\\d+"))) {
      // An integer all the same: the range is what is wrong with it.
      problems.add(
          pathOf(key), "must be between " + min + " and " + max + ", got " + v.asText().trim());
      return dflt;
    }
    if (n == null) {
      problems.add(pathOf(key), "expected an integer, got " + describe(v));
      return dflt;
    }
    if (n < min || n > max) {
      problems.add(pathOf(key), "must be between " + min + " and " + max + ", got " + n);
      return dflt;
    }
    return n.intValue();
  }

  boolean bool(String key, boolean dflt) {
    JsonNode v = raw(key);
    if (v == null) {
      return dflt;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isTextual() && (v.textValue().equals("true") || v.textValue().equals("false"))) {
      return Boolean.parseBoolean(v.textValue());
    }
    problems.add(pathOf(key), "expected true or false, got " + describe(v));
    return dflt;
  }

  /** A duration such as 250ms, 30s, 5m, 12h; absent gives {@code dflt} (which may be null). */
  Duration duration(String key, Duration dflt) {
    JsonNode v = raw(key);
    if (v == null) {
      return dflt;
    }
    if (!v.isTextual() && !v.isIntegralNumber()) {
      problems.add(pathOf(key), "expected a duration such as 30s, got " + describe(v));
      return dflt;
    }
    try {
      return Durations.parse(v.asText());
    } catch (Durations.NegativeException e) {
      // Said as the API says it: a number as written, a string in quotes.
      problems.add(
          pathOf(key),
          v.isTextual() ? e.getMessage() : "must not be negative, got " + v.asText());
      return dflt;
    } catch (IllegalArgumentException e) {
      problems.add(pathOf(key), e.getMessage());
      return dflt;
    }
  }

  long size(String key, long dflt) {
    JsonNode v = raw(key);
    if (v == null) {
      return dflt;
    }
    if (!v.isTextual() && !v.isIntegralNumber()) {
      problems.add(pathOf(key), "expected a size such as 1MB, got " + describe(v));
      return dflt;
    }
    try {
      return ByteSizes.parse(v.asText());
    } catch (IllegalArgumentException | ArithmeticException e) {
      problems.add(pathOf(key), "not a size: \"" + v.asText() + "\"");
      return dflt;
    }
  }

  /** A list of strings; a single string is read as a list of one. */
  List<String> strings(String key) {
    JsonNode v = raw(key);
    List<String> out = new ArrayList<>();
    if (v == null) {
      return out;
    }
    if (v.isTextual() || v.isNumber()) {
      out.add(v.asText());
      return out;
    }
    if (!v.isArray()) {
      problems.add(pathOf(key), "expected a list of strings, got " + describe(v));
      return out;
    }
    for (int i = 0; i < v.size(); i++) {
      JsonNode item = v.get(i);
      if (item.isTextual() || item.isNumber()) {
        out.add(item.asText());
      } else {
        problems.add(pathOf(key) + "[" + i + "]", "expected a string, got " + describe(item));
      }
    }
    return out;
  }

  /** Reports every key that no reader asked for, suggesting a close known key when there is one. */
  void rejectUnknown() {
    node.fieldNames()
        .forEachRemaining(
            key -> {
              if (!known.contains(key)) {
                String hint = Suggest.closest(key, known);
                problems.add(
                    pathOf(key),
                    "unknown key" + (hint == null ? "" : " (did you mean " + hint + "?)"));
              }
            });
  }

  static String describe(JsonNode v) {
    if (v.isObject()) {
      return "a map";
    }
    if (v.isArray()) {
      return "a list";
    }
    if (v.isTextual()) {
      return "\"" + v.textValue() + "\"";
    }
    return v.asText();
  }
}
