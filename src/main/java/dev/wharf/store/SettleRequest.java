package dev.wharf.store;

import java.time.Instant;
import java.util.List;

/**
 * Settle leases of one queue, all of one kind.
 *
 * @param visibleAt for RETRY and DEFER: when the message is visible again
 * @param leaseUntil for EXTEND: the new end of the lease (never moved earlier)
 * @param policy for RETRY and DEAD: where dead messages go
 * @param reason for DEAD (and RETRY that ends dead): the dead reason
 * @param permissive accept a stale lease while the message still exists, and an ack of a message
 *     already gone (Cloudflare semantics)
 */
public record SettleRequest(
    String queue,
    SettleKind kind,
    List<String> leaseIds,
    Instant now,
    Instant visibleAt,
    Instant leaseUntil,
    DeadLetterPolicy policy,
    String reason,
    boolean permissive) {

  public SettleRequest {
    leaseIds = List.copyOf(leaseIds);
  }

  /**
   * The dead reason of a message this settle sends to the DLQ: {@link #reason} when given, else
   * what the kind says (a dead nack, or a retry with its attempts used up).
   */
  public String deadReason() {
    if (reason != null) {
      return reason;
    }
    return kind == SettleKind.DEAD
        ? DeadLetterPolicy.NACKED_DEAD
        : DeadLetterPolicy.ATTEMPTS_USED_UP;
  }
}
