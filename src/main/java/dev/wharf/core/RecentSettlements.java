package dev.wharf.core;

import dev.wharf.store.LeaseOutcome.Outcome;

/**
 * Remembers, for a few minutes, how recent leases were settled, so a consumer that repeats an ack
 * (its first answer was lost) is told it succeeded instead of getting a conflict. Which settles
 * count as repeats is {@link Settlements}'s rule.
 *
 * <p>Memory is fixed: a table keyed by a 64-bit hash of the lease id, in sets of {@link #WAYS}
 * slots. A new entry takes its set's oldest slot, so a lease is forgotten only once that many
 * newer ones have come into its set: a repeat sent at once, as a consumer whose answer was lost
 * sends it, is recognised whatever the load, where one slot a set would lose it to the first
 * newer lease on that slot. Under a load so high that a set fills within the window, the oldest
 * entry is forgotten and its repeat gets the honest "not found".
 */
final class RecentSettlements {
  private static final int SLOTS = 1 << 18;
  /** Slots of a set, side by side in the arrays: one or two cache lines a lookup. */
  static final int WAYS = 4;
  private static final int SETS = SLOTS / WAYS;
  private static final int STRIPES = 64;
  private final long[] hashes = new long[SLOTS];
  private final long[] stamps = new long[SLOTS];
  private final Object[] locks = new Object[STRIPES];
  private final long windowMillis;

  RecentSettlements(long windowMillis) {
    this.windowMillis = windowMillis;
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new Object();
    }
  }

  /** A lease's outcome, remembered for the queue whose route settled it and for no other. */
  void remember(String queue, String leaseId, Outcome outcome, long nowMillis) {
    long h = hash(queue, leaseId);
    int set = set(h);
    int first = set * WAYS;
    synchronized (locks[set & (STRIPES - 1)]) {
      // The lease's own slot when it is there (a settle remembered again), else the oldest; an
      // empty slot's stamp is 0, older than any.
      int slot = first;
      for (int i = first; i < first + WAYS; i++) {
        if (hashes[i] == h) {
          slot = i;
          break;
        }
        if (stamps[i] >>> 8 < stamps[slot] >>> 8) {
          slot = i;
        }
      }
      hashes[slot] = h;
      stamps[slot] = (nowMillis << 8) | outcome.ordinal();
    }
  }

  /** The outcome a lease was settled with on this queue within the window, or null. */
  Outcome recall(String queue, String leaseId, long nowMillis) {
    long h = hash(queue, leaseId);
    int set = set(h);
    int first = set * WAYS;
    long stamp = -1;
    synchronized (locks[set & (STRIPES - 1)]) {
      for (int i = first; i < first + WAYS; i++) {
        if (hashes[i] == h) {
          stamp = stamps[i];
          break;
        }
      }
    }
    if (stamp < 0 || nowMillis - (stamp >>> 8) > windowMillis) {
      return null;
    }
    return Outcome.values()[(int) (stamp & 0xff)];
  }

  /** The set a lease's hash falls in (for tests: leases that share one). */
  static int set(String queue, String leaseId) {
    return set(hash(queue, leaseId));
  }

  private static int set(long h) {
    return (int) (h & (SETS - 1));
  }

  private static long hash(String queue, String leaseId) {
    long h = 0xcbf29ce484222325L;
    h = mix(h, queue);
    // A queue name never holds a NUL: the two names cannot run into one another.
    h = (h ^ 0) * 0x100000001b3L;
    h = mix(h, leaseId);
    return h == 0 ? 1 : h;
  }

  private static long mix(long h, String s) {
    for (int i = 0; i < s.length(); i++) {
      h ^= s.charAt(i);
      h *= 0x100000001b3L;
    }
    return h;
  }
}
