package dev.wharf.store;

import dev.wharf.store.LeaseOutcome.Outcome;

/**
 * Whether a settle may touch the row a lease id names, the same for every backend: the row must be
 * in the request's queue, not expired, and (unless the request is permissive) leased under this
 * very lease, which must not have ended.
 */
public final class LeaseCheck {
  private LeaseCheck() {}

  /** What a backend read of the named row: null fields when there is no such row. */
  public record Row(String queue, int state, String leaseId, long leaseUntil) {}

  /**
   * The outcome to answer without touching the row, or null when the settle goes ahead.
   *
   * @param row null when no row has the lease id's sequence
   */
  public static Outcome refusal(SettleRequest r, String leaseId, Row row) {
    if (row == null) {
      // Permissive consumers may ack a message another consumer already acked.
      boolean goneAck =
          r.permissive() && r.kind() == SettleKind.ACK && LeaseIds.seqOf(leaseId) >= 0;
      return goneAck ? Outcome.ACKED : Outcome.LEASE_NOT_FOUND;
    }
    if (!row.queue().equals(r.queue()) || row.state() == MessageState.EXPIRED.code()) {
      return Outcome.LEASE_NOT_FOUND;
    }
    if (r.permissive()) {
      return null;
    }
    if (row.state() != MessageState.LEASED.code() || !leaseId.equals(row.leaseId())) {
      return Outcome.LEASE_NOT_FOUND;
    }
    return row.leaseUntil() <= r.now().toEpochMilli() ? Outcome.LEASE_EXPIRED : null;
  }
}
