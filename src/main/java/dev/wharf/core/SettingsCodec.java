package dev.wharf.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Queue settings to and from the JSON document the store keeps. */
final class SettingsCodec {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SettingsCodec() {}

  static String toJson(QueueSettings s) {
    ObjectNode n = JSON.createObjectNode();
    n.put("visibility_timeout_ms", s.visibilityTimeout().toMillis());
    n.put("max_visibility_timeout_ms", s.maxVisibilityTimeout().toMillis());
    n.put("max_attempts", s.maxAttempts());
    n.put("dead_letter_queue", s.deadLetterQueue());
    n.put("delay_ms", s.delay().toMillis());
    if (s.ttl() == null) {
      n.putNull("ttl_ms");
    } else {
      n.put("ttl_ms", s.ttl().toMillis());
    }
    var tokens = n.putArray("consumer_tokens");
    s.consumerTokens().forEach(tokens::add);
    return n.toString();
  }

  static QueueSettings fromJson(String queue, String json) {
    try {
      JsonNode n = JSON.readTree(json);
      QueueSettings d = QueueSettings.defaultsFor(queue);
      List<String> tokens = new ArrayList<>();
      n.path("consumer_tokens").forEach(t -> tokens.add(t.asText()));
      JsonNode dlq = n.get("dead_letter_queue");
      JsonNode ttl = n.get("ttl_ms");
      return new QueueSettings(
          millis(n, "visibility_timeout_ms", d.visibilityTimeout()),
          millis(n, "max_visibility_timeout_ms", d.maxVisibilityTimeout()),
          n.path("max_attempts").asInt(d.maxAttempts()),
          dlq == null ? d.deadLetterQueue() : dlq.isNull() ? null : dlq.asText(),
          millis(n, "delay_ms", d.delay()),
          ttl == null || ttl.isNull() ? null : Duration.ofMillis(ttl.asLong()),
          tokens);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("stored settings of queue " + queue + " are unreadable", e);
    }
  }

  private static Duration millis(JsonNode n, String field, Duration dflt) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? dflt : Duration.ofMillis(v.asLong());
  }
}
