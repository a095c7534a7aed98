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
    String name, long visibilityMs, int maxAttempts, String deadLetterQueue, long delayMs,
    Long ttlMs) {

  /**
   * Three queues that differ where the state machine branches (attempts left, DLQ or drop, a
   * default TTL, a default delay), and the two DLQs, which are consumed like any queue.
   */
  static final List<QueueSpec> ALL = List.of(
      new QueueSpec("a", 5_000, 3, "a.dlq", 0, null),
      new QueueSpec("b", 3_000, 2, "b.dlq", 0, 25_000L),
      new QueueSpec("c", 4_000, 2, null, 2_000, null),
      new QueueSpec("a.dlq", 30_000, 0, null, 0, null),
      new QueueSpec("b.dlq", 30_000, 0, null, 0, null));

  /** The queues producers publish to; the DLQs are filled by dead messages only. */
  static final List<QueueSpec> PUBLISHED = ALL.subList(0, 3);

  static QueueSpec named(String name) {
    return ALL.stream().filter(s -> s.name.equals(name)).findFirst().orElseThrow();
  }

  QueueSettingsPatch patch() {
    return new QueueSettingsPatch(
        Duration.ofMillis(visibilityMs), null, maxAttempts,
        Optional.ofNullable(deadLetterQueue), Duration.ofMillis(delayMs),
        Optional.ofNullable(ttlMs).map(Duration::ofMillis), null);
  }

  boolean lastAttempt(int attempt) {
    return maxAttempts > 0 && attempt >= maxAttempts;
  }
}
