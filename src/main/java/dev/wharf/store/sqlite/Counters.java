package dev.wharf.store.sqlite;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Message counts kept in memory so depth never needs {@code COUNT(*)}: per queue and state, and per
 * (DLQ, original queue) for dead messages. Rebuilt from the table at start; changed only by the
 * writer, through a {@link Delta} applied after its commit (a rolled-back batch leaves no trace).
 */
final class Counters {
  static final int STATES = 3;
  private final ConcurrentHashMap<String, LongAdder[]> byQueue = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, LongAdder> deadByOrigin = new ConcurrentHashMap<>();

  long get(String queue, int state) {
    LongAdder[] a = byQueue.get(queue);
    return a == null ? 0 : Math.max(0, a[state].sum());
  }

  long dead(String dlq, String origin) {
    LongAdder a = deadByOrigin.get(key(dlq, origin));
    return a == null ? 0 : Math.max(0, a.sum());
  }

  void clear() {
    byQueue.clear();
    deadByOrigin.clear();
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
