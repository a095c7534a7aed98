package dev.wharf.config;

import java.util.List;

/**
 * How webhooks reach a queue, in qhook's terms. Parsed and checked now; the ingest layer acts on
 * it.
 *
 * @param source the source whose events enter the queue; null = the queue is fed by publishes
 * @param events event types accepted; empty = all
 * @param filter a JSONPath filter expression; null = none
 * @param idempotencyKey a JSONPath to the deduplication key; null = none
 */
public record QueueIngest(String source, List<String> events, String filter, String idempotencyKey) {

  public QueueIngest {
    events = List.copyOf(events);
  }

  public static QueueIngest none() {
    return new QueueIngest(null, List.of(), null, null);
  }
}
