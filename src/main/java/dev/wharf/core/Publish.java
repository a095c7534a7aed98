package dev.wharf.core;

import dev.wharf.store.ContentType;
import java.time.Duration;
import java.util.Map;

/**
 * One message as a producer hands it to the core.
 *
 * @param metadata a JSON object as text, or null
 * @param delay null = the queue's default delay
 * @param ttl null = the queue's default TTL; zero = no TTL
 */
public record Publish(
    ContentType contentType,
    byte[] payload,
    Map<String, String> headers,
    String metadata,
    Duration delay,
    Duration ttl,
    String idempotencyKey,
    String key) {

  public static Publish json(String json) {
    return new Publish(
        ContentType.JSON,
        json.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        Map.of(),
        null,
        null,
        null,
        null,
        null);
  }
}
