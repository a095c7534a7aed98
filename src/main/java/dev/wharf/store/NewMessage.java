package dev.wharf.store;

import java.time.Instant;
import java.util.Map;

/**
 * A message about to be written. The core has already resolved ids and times, so both backends
 * store exactly the same thing.
 *
 * @param metadata a JSON object as text, or null
 * @param expiresAt null when no TTL applies
 * @param idempotencyKey null when the publisher gave none
 * @param key null unless the publisher asked for an upsert of the ready message with this key
 */
public record NewMessage(
    String id,
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
