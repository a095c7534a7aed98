package dev.wharf.model;

import dev.wharf.store.LeaseOutcome.Outcome;

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
  EXTEND;

  /**
   * Whether this settle, on a lease settled moments ago with {@code earlier}, repeats that settle
   * (docs/api.md): only then does it answer the first outcome again, else it is a conflict.
   */
  boolean repeats(Outcome earlier) {
    return switch (this) {
      case ACK -> earlier == Outcome.ACKED;
      case NACK -> earlier == Outcome.RETRIED || earlier == Outcome.DEAD
          || earlier == Outcome.DROPPED;
      case DEAD -> earlier == Outcome.DEAD || earlier == Outcome.DROPPED;
      case DEFER -> earlier == Outcome.DEFERRED;
      case EXTEND -> false;
    };
  }
}
