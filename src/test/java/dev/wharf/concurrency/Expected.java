package dev.wharf.concurrency;

import dev.wharf.store.LeaseOutcome.Outcome;
import java.util.Comparator;
import java.util.List;

/**
 * Where one message must be at a quiescent moment {@code now}, once a reaper pass at {@code now}
 * has run, as DESIGN section 3 derives it from the ledger alone.
 *
 * @param attempt the attempts the store must count for it (deliveries not deferred or released)
 * @param delayedSure visible only after {@code now}, whatever instant each call read
 * @param readySure visible at {@code now}, whatever instant each call read
 */
record Expected(Where where, boolean leased, int attempt, boolean delayedSure, boolean readySure) {

  enum Where {
    GONE,
    MAIN,
    /** Ready in the queue, or deleted because a newer publish with its key superseded it. */
    MAIN_OR_GONE,
    DLQ
  }

  /**
   * @param created the publish that made the message
   * @param keyRemade whether another message was made for the message's key: only then may a
   *     lease that expired have deleted it (the reaper does not say which it deleted)
   */
  static Expected of(Published created, List<Delivered> ds, long now, int maxAttempts,
      boolean keyRemade) {
    int counted = 0;
    boolean acked = false;
    boolean leased = false;
    for (Delivered d : ds) {
      Settled end = d.end();
      if (end == null || !returnedUncounted(end)) {
        counted++;
      }
      if (end != null && end.outcome() == Outcome.ACKED) {
        acked = true;
      }
      if (end == null && d.maxUntil() > now) {
        leased = true;
      }
    }
    if (acked) {
      return new Expected(Where.GONE, false, counted, false, false);
    }
    if (leased) {
      return new Expected(Where.MAIN, true, counted, false, false);
    }
    Delivered last = last(ds);
    if (last == null) {
      return visibleFrom(Where.MAIN, counted, created.clockBefore(), created.clockAfter(),
          created.delayMs(), now);
    }
    Settled end = last.end();
    if (end == null) {
      // The lease expired and the reaper at or before now ended it, visible at the reaper's now.
      Where w = last.attempt >= maxAttempts ? Where.DLQ
          : keyRemade ? Where.MAIN_OR_GONE : Where.MAIN;
      return new Expected(w, false, counted, false, true);
    }
    return switch (end.outcome()) {
      case DEAD, DROPPED -> new Expected(Where.DLQ, false, counted, false, true);
      case RETRIED, DEFERRED, RELEASED -> end.superseded()
          ? new Expected(Where.GONE, false, counted, false, false)
          : visibleFrom(Where.MAIN, counted, end.clockBefore(), end.clockAfter(),
              end.outcome() == Outcome.RELEASED ? 0 : end.delayMs(), now);
      default -> throw new IllegalStateException("a lease ended as " + end);
    };
  }

  static boolean returnedUncounted(Settled end) {
    return end.outcome() == Outcome.DEFERRED || end.outcome() == Outcome.RELEASED;
  }

  /**
   * The delivery after which no other came: the highest attempt, and of its deliveries the one
   * that counted (deferred and released ones are followed by one of the same attempt).
   */
  static Delivered last(List<Delivered> ds) {
    if (ds.isEmpty()) {
      return null;
    }
    int top = ds.stream().mapToInt(d -> d.attempt).max().orElseThrow();
    List<Delivered> atTop = ds.stream().filter(d -> d.attempt == top).toList();
    for (Delivered d : atTop) {
      Settled end = d.end();
      if (end == null || !returnedUncounted(end)) {
        return d;
      }
    }
    return atTop.stream()
        .max(Comparator.comparingLong(d -> d.end().startTick()))
        .orElseThrow();
  }

  private static Expected visibleFrom(Where w, int counted, long clockBefore, long clockAfter,
      long delayMs, long now) {
    return new Expected(w, false, counted, clockBefore + delayMs > now,
        clockAfter + delayMs <= now);
  }
}
