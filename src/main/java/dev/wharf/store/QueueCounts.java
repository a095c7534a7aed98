package dev.wharf.store;

import java.time.Instant;

/**
 * Depth of one queue by state, from maintained counters (the delayed split is an index range).
 *
 * @param ready visible now
 * @param delayed ready but visible only later
 * @param readySince when the visible message that has waited longest for a consumer became
 *     visible (the next one a claim takes: claims go by visible time), or null when none is
 */
public record QueueCounts(long ready, long delayed, long leased, long expired, Instant readySince) {

  public static final QueueCounts EMPTY = new QueueCounts(0, 0, 0, 0, null);

  public long depth() {
    return ready + delayed + leased;
  }
}
