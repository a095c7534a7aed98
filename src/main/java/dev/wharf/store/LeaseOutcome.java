package dev.wharf.store;

import java.time.Instant;

/**
 * What became of one lease in a settle. {@code leaseUntil} is set for EXTENDED. {@code superseded}
 * is set when the lease ended without an ack on a message that a newer publish with its key had
 * superseded: the message was deleted where it would have been ready again, and {@code outcome}
 * is still the one that settle gives (the consumer's answer does not change).
 */
public record LeaseOutcome(
    String leaseId, Outcome outcome, Instant leaseUntil, boolean superseded) {

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

  public LeaseOutcome(String leaseId, Outcome outcome, Instant leaseUntil) {
    this(leaseId, outcome, leaseUntil, false);
  }

  public static LeaseOutcome of(String leaseId, Outcome outcome) {
    return new LeaseOutcome(leaseId, outcome, null);
  }

  /** A lease ended as {@code outcome} asks, its superseded message deleted instead. */
  public static LeaseOutcome ofSuperseded(String leaseId, Outcome outcome) {
    return new LeaseOutcome(leaseId, outcome, null, true);
  }
}
