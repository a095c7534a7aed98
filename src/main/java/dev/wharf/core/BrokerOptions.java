package dev.wharf.core;

import java.time.Duration;

/**
 * Limits and windows the broker enforces, whatever the dialect.
 *
 * @param maxWait longest long-poll wait
 * @param maxWaiters consumers that may be parked at once; past it, receive fails fast
 * @param maxPublishBatch messages in one publish request
 * @param idempotencyWindow how long an idempotency key counts
 * @param expiredRetention how long an expired message is kept for inspection
 * @param repeatWindow how long a repeated settle of a finished lease counts as success
 * @param maxReceiveBytes message size (payload bytes, metadata and header characters) past which a receive takes no further message (the first
 *     is always taken)
 */
public record BrokerOptions(
    Duration maxWait,
    int maxWaiters,
    int maxPublishBatch,
    Duration idempotencyWindow,
    Duration expiredRetention,
    Duration repeatWindow,
    long maxReceiveBytes) {

  public static final int MAX_RECEIVE_BATCH = 100;
  public static final int MAX_SETTLE_BATCH = 100;

  public static BrokerOptions defaults() {
    return new BrokerOptions(
        Duration.ofSeconds(30),
        10_000,
        1000,
        Duration.ofHours(24),
        Duration.ofDays(1),
        Duration.ofMinutes(5),
        8L << 20);
  }
}
