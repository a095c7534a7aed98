package dev.wharf.store;

/**
 * Where a message is in its life. An acked message has no state: it is deleted. A dead message
 * is a READY message in its DLQ queue that carries {@code originalQueue} and {@code deadReason}.
 */
public enum MessageState {
  /**
   * Visible at {@code visibleAt} (a delayed message is READY with a future visibleAt). Leaves by:
   * receive (to LEASED), TTL passing (to EXPIRED), key upsert (replaced in place, stays READY),
   * purge or delete, redrive (moves queue, stays READY).
   */
  READY(0),
  /**
   * Held by one consumer until {@code leaseUntil}. Leaves by: ack (deleted), nack/defer (READY
   * or dead), extend (stays, later leaseUntil), lease expiry (READY or dead), release when the
   * response could not be written (READY, attempt not counted), TTL passing (to EXPIRED).
   */
  LEASED(1),
  /** TTL passed. Kept for inspection; leaves only by the delete reaper, purge or delete. */
  EXPIRED(2);

  private final int code;

  MessageState(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static MessageState ofCode(int code) {
    return switch (code) {
      case 0 -> READY;
      case 1 -> LEASED;
      case 2 -> EXPIRED;
      default -> throw new IllegalArgumentException("unknown message state " + code);
    };
  }
}
