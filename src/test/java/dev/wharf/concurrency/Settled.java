package dev.wharf.concurrency;

import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.SettleKind;

/**
 * One settle of one lease and its answer. Ticks order it against other threads' calls; the clock
 * readings bound the {@code now} the broker used.
 *
 * @param delayMs for RETRY and DEFER: the delay asked for
 * @param extendedUntil for an EXTENDED answer: the lease's new end in millis, else 0
 */
record Settled(
    SettleKind kind,
    Outcome outcome,
    boolean superseded,
    long delayMs,
    long extendedUntil,
    long startTick,
    long endTick,
    long clockBefore,
    long clockAfter) {

  /** Whether this answer ended the lease (an extend keeps it; a refusal changed nothing). */
  boolean endedLease() {
    return outcome.succeeded() && outcome != Outcome.EXTENDED;
  }
}
