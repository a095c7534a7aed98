package dev.wharf.core;

import dev.wharf.store.QueueCounts;
import dev.wharf.store.Store;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * What the depth gauges read. A queue's gauges (one per state, and the oldest ready message's
 * age) are read in one scrape, the depths one after the other and the age after every queue's
 * depths: one store read serves them all, so they agree. And once a read has failed (storage
 * down), the
 * gauges answer NaN for a while without asking: each read would otherwise wait out the store's
 * own timeout, seconds a gauge, and a scrape of many queues would hang for minutes just when it
 * matters.
 */
final class QueueDepths {
  /**
   * A read in the scrape under way serves the queue's other gauges up to this long; a gauge read
   * outside any scrape ({@link #scrapeStarting} never called) counts as one scrape.
   */
  private static final long FRESH_NANOS = 5_000_000_000L;
  /** After a failed read, how long the gauges answer NaN before the store is asked again. */
  private static final long BACKOFF_NANOS = 5_000_000_000L;

  private record Snapshot(QueueCounts counts, long readAt, long scrape) {}

  private final Store store;
  private final InstantSource clock;
  private final Predicate<String> exists;
  private final Map<String, Snapshot> last = new ConcurrentHashMap<>();
  private volatile long askAgainAt = System.nanoTime();
  private volatile long scrape;

  /** {@code exists} tells whether a queue exists now; a deletion says so before {@link #forget}. */
  QueueDepths(Store store, InstantSource clock, Predicate<String> exists) {
    this.store = store;
    this.clock = clock;
    this.exists = exists;
  }

  /** Messages of {@code queue} in {@code state} (ready, delayed, leased, expired), or NaN. */
  double depth(String queue, String state) {
    QueueCounts c = counts(queue);
    if (c == null) {
      return Double.NaN;
    }
    return switch (state) {
      case "ready" -> c.ready();
      case "delayed" -> c.delayed();
      case "leased" -> c.leased();
      default -> c.expired();
    };
  }

  /**
   * Seconds the ready message that has waited longest for a consumer has been visible (0 when
   * none is), or NaN: how far the queue's consumers are behind.
   */
  double oldestReadyAgeSeconds(String queue) {
    QueueCounts c = counts(queue);
    if (c == null) {
      return Double.NaN;
    }
    if (c.readySince() == null) {
      return 0;
    }
    return Math.max(0, clock.millis() - c.readySince().toEpochMilli()) / 1000.0;
  }

  private QueueCounts counts(String queue) {
    long now = System.nanoTime();
    Snapshot s = last.get(queue);
    long current = scrape;
    if (s != null && s.scrape() == current && now - s.readAt() < FRESH_NANOS) {
      return s.counts();
    }
    if (now - askAgainAt < 0) {
      return null;
    }
    if (!exists.test(queue)) {
      // A scrape that listed the queue's gauges before its deletion reads them after it.
      return null;
    }
    try {
      QueueCounts c = store.queueCounts(queue, clock.instant());
      Snapshot fresh = new Snapshot(c, now, current);
      // Kept only while the queue exists, checked in the map's lock for the name: a deletion
      // during the read would otherwise find nothing to forget, and the snapshot would stay.
      last.compute(queue, (q, old) -> exists.test(q) ? fresh : null);
      return c;
    } catch (RuntimeException e) {
      askAgainAt = System.nanoTime() + BACKOFF_NANOS;
      return null;
    }
  }

  void scrapeStarting() {
    scrape++;
  }

  void forget(String queue) {
    last.remove(queue);
  }

  /** Queues with a snapshot kept (for tests: a deleted queue must leave none). */
  int queuesRemembered() {
    return last.size();
  }
}
