package dev.wharf.store;

import java.time.Instant;
import java.util.function.Function;

/**
 * Return leased messages whose lease ended at or before {@code now} to ready, or to their DLQ when
 * the policy says their attempts are used up. At most {@code limit} messages per call.
 */
public record LeaseExpiryRequest(
    Instant now, int limit, Function<String, DeadLetterPolicy> policies) {}
