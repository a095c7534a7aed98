package dev.wharf.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * What a command reads from an answer. An answer without it did not come from Wharf (a web server
 * or a proxy at that address, a wrong path prefix), and read as it is it would pass for an empty
 * result: "no queues", "moved 0 dead messages", exit 0. Only what a command reads is required, so
 * a field the server adds later changes nothing.
 */
@FunctionalInterface
interface Shape {
  boolean fits(JsonNode n);

  Shape STRING = JsonNode::isTextual;
  Shape INTEGER = JsonNode::isIntegralNumber;
  Shape OBJECT = JsonNode::isObject;

  Shape QUEUE = object(Map.of("name", STRING, "settings", OBJECT, "stats", OBJECT));
  Shape QUEUES = object(Map.of("queues", arrayOf(QUEUE)));
  Shape MESSAGES = object(Map.of("messages", arrayOf(object(Map.of("id", STRING)))));
  Shape PUBLISHED = object(Map.of("id", STRING));
  Shape REDRIVEN = object(Map.of("redriven", INTEGER));
  Shape PURGED = object(Map.of("purged", INTEGER));

  /** An object with at least these fields, each of its shape. */
  static Shape object(Map<String, Shape> fields) {
    return n ->
        n.isObject()
            && fields.entrySet().stream()
                .allMatch(f -> n.has(f.getKey()) && f.getValue().fits(n.get(f.getKey())));
  }

  static Shape arrayOf(Shape each) {
    return n -> {
      if (!n.isArray()) {
        return false;
      }
      for (JsonNode e : n) {
        if (!each.fits(e)) {
          return false;
        }
      }
      return true;
    };
  }
}
