package dev.wharf.model;

import dev.wharf.core.QueueSettingsPatch;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The settings of one queue of the model test, as the model reads them and as the broker is told
 * them. Times are milliseconds; {@code maxAttempts} 0 is unlimited, a null DLQ drops dead messages,
 * a null TTL is none.
 */
record QueueSpec(
    String name, long visibilityMs, long maxVisibilityMs, int maxAttempts,
    String deadLetterQueue, long delayMs, Long ttlMs) {

  /** docs/api.md's defaults for max_visibility_timeout, and for a DLQ made on demand. */
  static final long DEFAULT_MAX_VISIBILITY_MS = 12 * 3_600_000L;
  static final long DEFAULT_VISIBILITY_MS = 30_000;

  /**
   * Three queues that differ where the state machine branches (attempts left, DLQ or drop, a
   * default TTL, a default delay), and the two DLQs, which are consumed like any queue.
   */
  static final List<QueueSpec> INITIAL = List.of(
      new QueueSpec("a", 5_000, DEFAULT_MAX_VISIBILITY_MS, 3, "a.dlq", 0, null),
      new QueueSpec("b", 3_000, DEFAULT_MAX_VISIBILITY_MS, 2, "b.dlq", 0, 25_000L),
      new QueueSpec("c", 4_000, DEFAULT_MAX_VISIBILITY_MS, 2, null, 2_000, null),
      deadLetterQueue("a.dlq"),
      deadLetterQueue("b.dlq"));

  /** The queues producers publish to; the DLQs are filled by dead messages only. */
  static final List<String> PUBLISHED = List.of("a", "b", "c");

  /** A DLQ made because a queue named it: default leases, unlimited attempts, no DLQ. */
  static QueueSpec deadLetterQueue(String name) {
    return new QueueSpec(
        name, DEFAULT_VISIBILITY_MS, DEFAULT_MAX_VISIBILITY_MS, 0, null, 0, null);
  }

  QueueSettingsPatch patch() {
    return new QueueSettingsPatch(
        Duration.ofMillis(visibilityMs), Duration.ofMillis(maxVisibilityMs), maxAttempts,
        Optional.ofNullable(deadLetterQueue), Duration.ofMillis(delayMs),
        Optional.ofNullable(ttlMs).map(Duration::ofMillis), null);
  }

  /**
   * These settings changed as docs/api.md reads a PUT: a null field keeps its value, an empty
   * DLQ is none, an empty or zero TTL is none.
   */
  QueueSpec with(QueueSettingsPatch p) {
    return new QueueSpec(
        name,
        p.visibilityTimeout() != null ? p.visibilityTimeout().toMillis() : visibilityMs,
        p.maxVisibilityTimeout() != null ? p.maxVisibilityTimeout().toMillis() : maxVisibilityMs,
        p.maxAttempts() != null ? p.maxAttempts() : maxAttempts,
        p.deadLetterQueue() != null ? p.deadLetterQueue().orElse(null) : deadLetterQueue,
        p.delay() != null ? p.delay().toMillis() : delayMs,
        p.ttl() != null
            ? p.ttl().filter(d -> !d.isZero()).map(Duration::toMillis).orElse(null)
            : ttlMs);
  }

  boolean lastAttempt(int attempt) {
    return maxAttempts > 0 && attempt >= maxAttempts;
  }
}
