package dev.wharf.model;

/** The ways a consumer settles a lease; each takes one argument, a time or a reason. */
enum LeaseAction {
  ACK,
  /** Retry after a delay; to the DLQ instead when it was the last attempt. */
  NACK,
  /** Straight to the DLQ, with the reason given. */
  DEAD,
  /** Retry after a delay, the attempt not counted. */
  DEFER,
  /** The lease ends later, never earlier. */
  EXTEND
}
