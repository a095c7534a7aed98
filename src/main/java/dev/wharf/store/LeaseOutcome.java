package dev.wharf.store;

import java.time.Instant;

/** What became of one lease in a settle. {@code leaseUntil} is set for EXTENDED. */
public record LeaseOutcome(String leaseId, Outcome outcome, Instant leaseUntil) {

  public enum Outcome {
    ACKED("acked"),
    RETRIED("retried"),
    DEFERRED("deferred"),
    EXTENDED("extended"),
    RELEASED("released"),
    DEAD("dead"),
    DROPPED("dropped"),
    LEASE_NOT_FOUND("lease_not_found"),
    LEASE_EXPIRED("lease_expired");

    private final String wire;

    Outcome(String wire) {
      this.wire = wire;
    }

    public String wire() {
      return wire;
    }

    public boolean succeeded() {
      return this != LEASE_NOT_FOUND && this != LEASE_EXPIRED;
    }
  }

  public static LeaseOutcome of(String leaseId, Outcome outcome) {
    return new LeaseOutcome(leaseId, outcome, null);
  }
}
