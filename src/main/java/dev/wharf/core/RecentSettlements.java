package dev.wharf.core;

import dev.wharf.store.LeaseOutcome.Outcome;

/**
 * Remembers, for a few minutes, how recent leases were settled, so a consumer that repeats an ack
 * (its first answer was lost) is told it succeeded instead of getting a conflict. Which settles
 * count as repeats is {@link Settlements}'s rule.
 *
 * <p>Memory is fixed: a direct-mapped table keyed by a 64-bit hash of the lease id. Under a load so
 * high that a slot is reused within the window, an old entry is forgotten and its repeat gets the
 * honest "not found".
 */
final class RecentSettlements {
  private static final int SLOTS = 1 << 18;
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
    int slot = (int) (h & (SLOTS - 1));
    synchronized (locks[slot & (STRIPES - 1)]) {
      hashes[slot] = h;
      stamps[slot] = (nowMillis << 8) | outcome.ordinal();
    }
  }

  /** The outcome a lease was settled with on this queue within the window, or null. */
  Outcome recall(String queue, String leaseId, long nowMillis) {
    long h = hash(queue, leaseId);
    int slot = (int) (h & (SLOTS - 1));
    long stamp;
    synchronized (locks[slot & (STRIPES - 1)]) {
      if (hashes[slot] != h) {
        return null;
      }
      stamp = stamps[slot];
    }
    if (nowMillis - (stamp >>> 8) > windowMillis) {
      return null;
    }
    return Outcome.values()[(int) (stamp & 0xff)];
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
