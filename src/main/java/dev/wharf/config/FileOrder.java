package dev.wharf.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;

/**
 * Where each path of a config file comes in it, so its problems can be listed from top to bottom.
 * They are found in passes (variables first, then each section's reader, then the checks across
 * queues), and a list in that order sends the reader up and down the file.
 */
final class FileOrder {
  private final Map<String, Integer> positions = new HashMap<>();

  FileOrder(JsonNode root) {
    if (root != null) {
      walk(root, "");
    }
  }

  private void walk(JsonNode node, String path) {
    positions.putIfAbsent(path, positions.size());
    if (node.isObject()) {
      node.fields().forEachRemaining(e -> walk(e.getValue(), ConfigNode.pathOf(path, e.getKey())));
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        walk(node.get(i), path + "[" + i + "]");
      }
    }
  }

  /**
   * The position of {@code path}; a key the file leaves out (a required one) takes its map's.
   * Null, a problem of the whole file rather than of a path, comes after all the rest.
   */
  int of(String path) {
    if (path == null) {
      return Integer.MAX_VALUE;
    }
    String p = path;
    while (true) {
      Integer at = positions.get(p);
      if (at != null) {
        return at;
      }
      // A cut inside a quoted key ("a.b") names no path and is passed over on the way up.
      int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      if (cut < 0) {
        return 0;
      }
      p = p.substring(0, cut);
    }
  }
}
