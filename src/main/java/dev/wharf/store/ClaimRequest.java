package dev.wharf.store;

import java.time.Instant;

/**
 * Lease up to {@code max} of the oldest visible ready messages of a queue until leaseUntil, in
 * order, stopping before the one that would carry their sizes ({@link #size}) past {@code
 * maxBytes}. The first message is taken whatever its size, so one larger than the bound is still
 * delivered, alone. The bound keeps what one claim reads into memory, and what its answer renders,
 * in proportion to it rather than to max x max_body.
 */
public record ClaimRequest(String queue, int max, Instant now, Instant leaseUntil, long maxBytes) {
  /** No bound on the payload bytes taken. */
  public static final long ANY_SIZE = Long.MAX_VALUE;

  public ClaimRequest(String queue, int max, Instant now, Instant leaseUntil) {
    this(queue, max, now, leaseUntil, ANY_SIZE);
  }

  /**
   * Whether a claim that has taken {@code taken} messages takes the next one too, the payloads
   * then adding up to {@code bytesWithNext}.
   */
  public boolean takesNext(int taken, long bytesWithNext) {
    return taken < max && (taken == 0 || bytesWithNext <= maxBytes);
  }

  /**
   * What a message counts for against {@link #maxBytes}: its payload's bytes, and its metadata's
   * and headers' characters, each of which may be as large as a payload. A message read without
   * its payload counts for the rest, and its reader adds the payload's length.
   */
  public static long size(Message m) {
    long n = m.payload() == null ? 0 : m.payload().length;
    if (m.metadata() != null) {
      n += m.metadata().length();
    }
    for (java.util.Map.Entry<String, String> h : m.headers().entrySet()) {
      n += h.getKey().length() + h.getValue().length();
    }
    return n;
  }
}
