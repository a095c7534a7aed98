package dev.wharf.store;

/** The ways a consumer can end or change a lease. */
public enum SettleKind {
  /** Delete the message. */
  ACK,
  /** Back to ready after a delay, or dead when attempts are used up. */
  RETRY,
  /** Back to ready after a delay, the attempt not counted. */
  DEFER,
  /** Straight to the DLQ with a reason. */
  DEAD,
  /** Move leaseUntil later. */
  EXTEND,
  /** Back to ready at once, attempt not counted: the delivery never reached the consumer. */
  RELEASE
}
