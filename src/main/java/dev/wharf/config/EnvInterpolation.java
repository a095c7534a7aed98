package dev.wharf.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code ${VAR}} and {@code ${VAR:-default}} in string values, from an injected environment.
 * {@code $${} stands for a literal {@code ${}. It works on parsed values, not on the raw text, so
 * a secret holding YAML syntax ({@code #}, {@code : }) cannot change the file's structure.
 */
final class EnvInterpolation {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final Map<String, String> env;

  EnvInterpolation(Map<String, String> env) {
    this.env = env;
  }

  /** Replaces every interpolated string in the tree in place; problems are named by path. */
  void applyTree(JsonNode node, String path, Problems problems) {
    if (node instanceof ObjectNode obj) {
      List<String> keys = new ArrayList<>();
      obj.fieldNames().forEachRemaining(keys::add);
      for (String key : keys) {
        JsonNode child = obj.get(key);
        String childPath = ConfigNode.pathOf(path, key);
        if (child.isTextual()) {
          String v = textOrReport(child.textValue(), childPath, problems);
          obj.set(key, TextNode.valueOf(v));
        } else {
          applyTree(child, childPath, problems);
        }
      }
    } else if (node instanceof ArrayNode arr) {
      for (int i = 0; i < arr.size(); i++) {
        JsonNode child = arr.get(i);
        String childPath = path + "[" + i + "]";
        if (child.isTextual()) {
          arr.set(i, TextNode.valueOf(textOrReport(child.textValue(), childPath, problems)));
        } else {
          applyTree(child, childPath, problems);
        }
      }
    }
  }

  private String textOrReport(String text, String path, Problems problems) {
    try {
      return apply(text);
    } catch (IllegalArgumentException e) {
      problems.addFinal(path, e.getMessage());
      return text;
    }
  }

  /** Interpolates one string; throws IllegalArgumentException naming what is wrong. */
  String apply(String text) {
    if (text.indexOf('$') < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '$' && text.startsWith("$${", i)) {
        out.append("${");
        i += 3;
      } else if (c == '$' && text.startsWith("${", i)) {
        int end = text.indexOf('}', i + 2);
        if (end < 0) {
          throw new IllegalArgumentException("unclosed \"${\" in \"" + text + "\"");
        }
        out.append(resolve(text.substring(i + 2, end)));
        i = end + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private String resolve(String expr) {
    int sep = expr.indexOf(":-");
    String name = sep < 0 ? expr : expr.substring(0, sep);
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not a variable name: \"${" + expr + "}\"");
    }
    String value = env.get(name);
    if (sep >= 0) {
      // Shell semantics: the default applies when the variable is unset or empty.
      return value == null || value.isEmpty() ? expr.substring(sep + 2) : value;
    }
    if (value == null) {
      throw new IllegalArgumentException(
          "environment variable " + name + " is not set (use ${" + name + ":-default})");
    }
    return value;
  }
}
