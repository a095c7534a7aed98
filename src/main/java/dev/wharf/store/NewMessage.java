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
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }
}
