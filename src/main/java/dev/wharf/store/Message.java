package dev.wharf.store;

import java.time.Instant;
import java.util.Map;

/**
 * A stored message as read back. {@code seq} is the publish order inside the store; it is also
 * the browse cursor.
 */
public record Message(
    long seq,
    String id,
    String queue,
    MessageState state,
    ContentType contentType,
    byte[] payload,
    Map<String, String> headers,
    String metadata,
    int attempt,
    Instant publishedAt,
    Instant visibleAt,
    Instant leaseUntil,
    Instant expiresAt,
    String key,
    String originalQueue,
    String deadReason,
    Instant diedAt) {

  public Message {
    headers = headers == null ? Map.of() : headers;
  }

  /** This message with {@code newPayload}: for a claim that reads payloads after picking rows. */
  public Message withPayload(byte[] newPayload) {
    return new Message(
        seq, id, queue, state, contentType, newPayload, headers, metadata, attempt, publishedAt,
        visibleAt, leaseUntil, expiresAt, key, originalQueue, deadReason, diedAt);
  }

  /** This message as a claim hands it out: leased until {@code until}, its attempt counted. */
  public Message leasedUntil(Instant until) {
    return new Message(
        seq, id, queue, MessageState.LEASED, contentType, payload, headers, metadata, attempt + 1,
        publishedAt, visibleAt, until, expiresAt, key, originalQueue, deadReason, diedAt);
  }
}
