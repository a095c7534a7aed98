package dev.wharf.store;

import java.time.Instant;
import java.util.List;

/**
 * One request's messages for one queue, written all-or-none in one transaction.
 *
 * @param idempotencyUntil when a key first seen now stops counting as a duplicate
 */
public record PublishBatch(
    String queue, List<NewMessage> messages, Instant now, Instant idempotencyUntil) {

  public PublishBatch {
    messages = List.copyOf(messages);
  }
}
