package dev.wharf.store;

import java.time.Instant;

/**
 * Depth of one queue by state, from maintained counters (the delayed split is an index range).
 *
 * @param ready visible now
 * @param delayed ready but visible only later
 * @param oldestReady publish time of the oldest visible message, or null
 */
public record QueueCounts(long ready, long delayed, long leased, long expired, Instant oldestReady) {

  public static final QueueCounts EMPTY = new QueueCounts(0, 0, 0, 0, null);

  public long depth() {
    return ready + delayed + leased;
  }
}
