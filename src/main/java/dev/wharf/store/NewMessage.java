package dev.wharf.store;

import java.time.Instant;
import java.util.Map;

/**
 * A message about to be written. The core has already resolved its times; the store gives it its
 * id as it writes it (see {@link MessageIds}).
 *
 * @param metadata a JSON object as text, or null
 * @param expiresAt null when no TTL applies
 * @param idempotencyKey null when the publisher gave none
 * @param key null unless the publisher asked for an upsert of the ready message with this key
 */
public record NewMessage(
    ContentType contentType,
    byte[] payload,
    Map<String, String> headers,
    String metadata,
    Instant visibleAt,
    Instant expiresAt,
    String idempotencyKey,
    String key) {

  public NewMessage {
    // In the order given: consumers see the headers as their publisher wrote them.
    headers = headers == null || headers.isEmpty() ? Map.of() : ordered(headers);
  }

  private static Map<String, String> ordered(Map<String, String> headers) {
    Map<String, String> copy = new java.util.LinkedHashMap<>(headers);
    copy.forEach((name, value) -> {
      java.util.Objects.requireNonNull(name, "a header name");
      java.util.Objects.requireNonNull(value, "a header value");
    });
    return java.util.Collections.unmodifiableMap(copy);
  }
}
