package dev.wharf.store.sqlite;

import dev.wharf.store.StoreException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

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
  private final ConcurrentHashMap<String, LongAdder[]> byQueue = new ConcurrentHashMap<>();
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
    LongAdder[] a = byQueue.get(queue);
    return a == null ? 0 : Math.max(0, a[state].sum());
  }

  /** Every message counted, of every queue and state. */
  long total() {
    long sum = 0;
    for (LongAdder[] row : byQueue.values()) {
      for (LongAdder a : row) {
        sum += Math.max(0, a.sum());
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
    byQueue.computeIfAbsent(queue, q -> newRow())[state].add(n);
  }

  void addDead(String dlq, String origin, long n) {
    deadByOrigin.computeIfAbsent(key(dlq, origin), k -> new LongAdder()).add(n);
  }

  private static LongAdder[] newRow() {
    LongAdder[] a = new LongAdder[STATES];
    for (int i = 0; i < STATES; i++) {
      a[i] = new LongAdder();
    }
    return a;
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
     * One addition per queue and state, so a reader never sees a state half-way through a batch
     * (moves between origins of one state would otherwise pass through a lower count).
     */
    void applyTo(Counters c) {
      Map<Cell, Long> byState = new HashMap<>();
      changes.forEach(
          (cell, n) -> {
            byState.merge(new Cell(cell.queue(), cell.state(), null), n, Long::sum);
            if (cell.origin() != null) {
              c.addDead(cell.queue(), cell.origin(), n);
            }
          });
      byState.forEach((cell, n) -> c.addState(cell.queue(), cell.state(), n));
    }
  }
}
