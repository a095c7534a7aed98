package dev.wharf.store;

import java.time.Instant;

/** Lease up to {@code max} of the oldest visible ready messages of a queue until leaseUntil. */
public record ClaimRequest(String queue, int max, Instant now, Instant leaseUntil) {}
