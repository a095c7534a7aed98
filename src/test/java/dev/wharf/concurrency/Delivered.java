package dev.wharf.concurrency;

import dev.wharf.store.LeaseOutcome.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One delivery (one lease) as the consumer that received it saw it, and every settle that
 * consumer sent for it. Only its own consumer adds to it; the checks read it at pauses, which
 * the pause gate orders after those writes, and the locks make the reads safe besides.
 */
final class Delivered {
  final String id;
  final String leaseId;
  final String queue;
  final int attempt;
  final String payload;
  final long leaseUntil;
  final long startTick;
  final long endTick;
  final long clockBefore;
  final long clockAfter;
  final String by;
  private final List<Settled> settles = new ArrayList<>();

  Delivered(String id, String leaseId, String queue, int attempt, String payload,
      long leaseUntil, long startTick, long endTick, long clockBefore, long clockAfter,
      String by) {
    this.id = id;
    this.leaseId = leaseId;
    this.queue = queue;
    this.attempt = attempt;
    this.payload = payload;
    this.leaseUntil = leaseUntil;
    this.startTick = startTick;
    this.endTick = endTick;
    this.clockBefore = clockBefore;
    this.clockAfter = clockAfter;
    this.by = by;
  }

  synchronized void add(Settled s) {
    settles.add(s);
  }

  synchronized List<Settled> settles() {
    return List.copyOf(settles);
  }

  /**
   * The latest the lease could end: an extend answered EXTENDED moved it, and only a current
   * lease can be extended, so no other delivery can begin before this.
   */
  synchronized long maxUntil() {
    long until = leaseUntil;
    for (Settled s : settles) {
      if (s.outcome() == Outcome.EXTENDED) {
        until = Math.max(until, s.extendedUntil());
      }
    }
    return until;
  }

  /** The settle that ended the lease (the earliest sent), or null when none did. */
  synchronized Settled end() {
    return settles.stream()
        .filter(Settled::endedLease)
        .min(Comparator.comparingLong(Settled::startTick))
        .orElse(null);
  }

  @Override
  public synchronized String toString() {
    return "lease " + leaseId + " attempt " + attempt + " until " + leaseUntil + " (max "
        + maxUntil() + ") ticks " + startTick + ".." + endTick + " clock " + clockBefore + ".."
        + clockAfter + " by " + by + " settles " + settles;
  }
}
