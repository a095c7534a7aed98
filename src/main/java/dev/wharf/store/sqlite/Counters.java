package dev.wharf.store.sqlite;

import dev.wharf.store.StoreException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Message counts kept in memory so depth never needs {@code COUNT(*)}: per queue and state, and per
 * (DLQ, original queue) for dead messages. Changed by the writer, through a {@link Delta} applied
 * after its commit (a rolled-back batch leaves no trace), and once by {@link StartupCount}.
 *
 * <p>They start at zero and the writer's deltas are added from its first commit, while the
 * messages already on disk are still being counted; that count, taken at a snapshot from before
 * the first commit, is added when it is done. Until then the sums are partial (and may be
 * negative), so nothing reads them before {@link #counted()}.
 */
final class Counters {
  static final int STATES = 3;
  private final ConcurrentHashMap<String, Row> byQueue = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, LongAdder> deadByOrigin = new ConcurrentHashMap<>();
  private final CompletableFuture<Void> counted = new CompletableFuture<>();

  /** Whether the messages on disk at start have been counted in, so the sums are whole. */
  boolean counted() {
    return counted.isDone() && !counted.isCompletedExceptionally();
  }

  /** Waits until the sums are whole; fails if the count at start did. */
  void awaitCounted() {
    try {
      counted.join();
    } catch (CompletionException e) {
      throw new StoreException(
          "message counts are unavailable: " + e.getCause().getMessage(), e.getCause());
    }
  }

  void countedIn() {
    counted.complete(null);
  }

  void countFailed(Throwable cause) {
    counted.completeExceptionally(cause);
  }

  /** Why the count at start failed, or null when it succeeded or is under way. */
  String countFailure() {
    if (!counted.isCompletedExceptionally()) {
      return null;
    }
    try {
      counted.join();
      return null;
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      return cause.getMessage() == null
          ? cause.getClass().getSimpleName()
          : StoreException.firstLine(cause.getMessage());
    }
  }

  long get(String queue, int state) {
    Row r = byQueue.get(queue);
    return r == null ? 0 : Math.max(0, r.counts[state]);
  }

  /**
   * A queue's counts of every state at one moment: each batch's changes to a queue come in at
   * once, so a move between states (a claim, a nack) is never seen half-way, counted twice or
   * not at all.
   */
  long[] states(String queue) {
    Row r = byQueue.get(queue);
    long[] out = new long[STATES];
    if (r != null) {
      long[] c = r.counts;
      for (int i = 0; i < STATES; i++) {
        out[i] = Math.max(0, c[i]);
      }
    }
    return out;
  }

  /** Every message counted, of every queue and state. */
  long total() {
    long sum = 0;
    for (Row row : byQueue.values()) {
      for (long n : row.counts) {
        sum += Math.max(0, n);
      }
    }
    return sum;
  }

  long dead(String dlq, String origin) {
    LongAdder a = deadByOrigin.get(key(dlq, origin));
    return a == null ? 0 : Math.max(0, a.sum());
  }

  void forget(String queue) {
    byQueue.remove(queue);
    deadByOrigin.keySet().removeIf(k -> k.startsWith(queue + "\u0000"));
  }

  void add(String queue, int state, String origin, long n) {
    addState(queue, state, n);
    if (origin != null) {
      addDead(queue, origin, n);
    }
  }

  void addState(String queue, int state, long n) {
    long[] d = new long[STATES];
    d[state] = n;
    addStates(queue, d);
  }

  /** Adds to every state of a queue at once. */
  void addStates(String queue, long[] byState) {
    byQueue.computeIfAbsent(queue, NEW_ROW).add(byState);
  }

  void addDead(String dlq, String origin, long n) {
    deadByOrigin.computeIfAbsent(key(dlq, origin), k -> new LongAdder()).add(n);
  }

  private static final Function<String, Row> NEW_ROW = q -> new Row();

  /**
   * One queue's counts. Replaced whole on each change, under the row's lock (the writer's, and
   * the count at start's): a reader takes them all in one read, without a lock.
   */
  private static final class Row {
    private volatile long[] counts = new long[STATES];

    synchronized void add(long[] byState) {
      long[] next = counts.clone();
      for (int i = 0; i < STATES; i++) {
        next[i] += byState[i];
      }
      counts = next;
    }
  }

  private static String key(String dlq, String origin) {
    return dlq + "\u0000" + origin;
  }

  /** Changes one write batch makes; applied only if the batch commits. */
  static final class Delta {
    private record Cell(String queue, int state, String origin) {}

    private final Map<Cell, Long> changes = new HashMap<>();

    void add(String queue, int state, String origin, long n) {
      changes.merge(new Cell(queue, state, origin), n, Long::sum);
    }

    void move(String fromQueue, int fromState, String fromOrigin, String toQueue, int toState,
        String toOrigin) {
      add(fromQueue, fromState, fromOrigin, -1);
      add(toQueue, toState, toOrigin, 1);
    }

    /**
     * One addition per queue, of all its states, so a reader never sees a queue half-way through
     * a batch (a move between states, or between origins of one state, would otherwise pass
     * through counts that never were).
     */
    void applyTo(Counters c) {
      Map<String, long[]> byQueue = new HashMap<>();
      changes.forEach(
          (cell, n) -> {
            byQueue.computeIfAbsent(cell.queue(), q -> new long[STATES])[cell.state()] += n;
            if (cell.origin() != null) {
              c.addDead(cell.queue(), cell.origin(), n);
            }
          });
      byQueue.forEach(c::addStates);
    }
  }
}
