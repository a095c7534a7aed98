package dev.wharf.config;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * Reads a config file's YAML into a tree, keeping what the file says. A tree read the usual way
 * turned an unquoted {@code 0755} into 493, {@code 0x1F} into 31 and {@code 1.50} into 1.5, so a
 * token written that way was silently another token; and it read an alias ({@code *tok}) as the
 * anchor's name, not its value. Here a number is kept as a number only when it reads back the same;
 * otherwise it is its text, as written. Aliases are refused, each named by its path, and so is a
 * second document in the file.
 */
final class YamlTree {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  // The integers whose value reads back as they were written.
  private static final Pattern PLAIN_INTEGER = Pattern.compile("-?(0|[1-9][0-9]{0,17})");

  private YamlTree() {}

  /** The document's tree (null for an empty file); problems with the file's YAML go to problems. */
  static JsonNode read(YAMLFactory yaml, String text, String origin, Problems problems)
      throws IOException {
    try (YAMLParser p = (YAMLParser) yaml.createParser(text)) {
      if (p.nextToken() == null) {
        return null;
      }
      JsonNode root = value(p, "", problems);
      if (p.nextToken() != null) {
        problems.add(
            origin + ": line " + p.currentLocation().getLineNr()
                + ": a second YAML document (after ---) is not read; a config file holds one");
      }
      return root;
    }
  }

  private static JsonNode value(YAMLParser p, String path, Problems problems) throws IOException {
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT -> {
        ObjectNode out = NODES.objectNode();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          p.nextToken();
          out.set(key, value(p, ConfigNode.pathOf(path, key), problems));
        }
        return out;
      }
      case START_ARRAY -> {
        ArrayNode out = NODES.arrayNode();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          out.add(value(p, path + "[" + out.size() + "]", problems));
        }
        return out;
      }
      case VALUE_STRING -> {
        if (p.isCurrentAlias()) {
          problems.addFinal(
              path, "YAML aliases (*" + p.getText() + ") are not supported: write the value out");
          return NODES.nullNode();
        }
        return NODES.textNode(p.getText());
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        String written = p.getText();
        if (t == JsonToken.VALUE_NUMBER_INT && PLAIN_INTEGER.matcher(written).matches()) {
          return NODES.numberNode(p.getLongValue());
        }
        return NODES.textNode(written);
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        // YAML 1.1 reads yes, no, on, off (any case) as booleans: an admin token "yes" would
        // silently become "true". Only true and false are booleans here; the rest stay as written.
        String written = p.getText();
        if (written.equals("true") || written.equals("false")) {
          return NODES.booleanNode(t == JsonToken.VALUE_TRUE);
        }
        return NODES.textNode(written);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> throw new IOException("unexpected YAML token " + t + " at " + path);
    }
  }
}
