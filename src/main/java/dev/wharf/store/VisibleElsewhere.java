package dev.wharf.store;

import java.time.Instant;

/** Told what another writer (another node) made visible in a queue, so its waiters wake here. */
@FunctionalInterface
public interface VisibleElsewhere {
  /** {@link #visible}'s count when the teller does not know it (a poll, an older node). */
  int UNKNOWN = -1;

  /**
   * @param messages how many became visible now, or {@link #UNKNOWN}; 0 when only {@code later}
   *     is told
   * @param later null, or the earliest time a message made visible later (a delay, a nack's
   *     delay) becomes so
   */
  void visible(String queue, int messages, Instant later);
}
