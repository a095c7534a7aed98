package dev.wharf.store;

import java.time.Instant;

/** One hand-out of a message: the message (attempt already counted) and its lease. */
public record Delivery(Message message, String leaseId, Instant leaseUntil) {}
