package dev.wharf.concurrency;

/**
 * One message of one publish call and what the broker answered for it.
 *
 * @param delayMs the delay asked for (0 when none)
 * @param clockBefore the injected clock read just before the call, in millis
 * @param clockAfter the injected clock read just after it returned
 */
record Published(
    String id,
    String payload,
    String key,
    String idempotencyKey,
    long delayMs,
    boolean duplicate,
    boolean replaced,
    long startTick,
    long endTick,
    long clockBefore,
    long clockAfter,
    String by) {

  /** Whether this publish made the message, rather than finding or replacing one. */
  boolean created() {
    return !duplicate && !replaced;
  }
}
