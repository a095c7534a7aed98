package dev.wharf.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A partial change to queue settings, as a request or config section gives it. A null field keeps
 * the current value; {@code deadLetterQueue} and {@code ttl} are Optionals so "set to none"
 * (empty) differs from "leave as is" (null).
 */
public record QueueSettingsPatch(
    Duration visibilityTimeout,
    Duration maxVisibilityTimeout,
    Integer maxAttempts,
    Optional<String> deadLetterQueue,
    Duration delay,
    Optional<Duration> ttl,
    List<String> consumerTokens) {

  public static final QueueSettingsPatch EMPTY =
      new QueueSettingsPatch(null, null, null, null, null, null, null);

  public QueueSettings applyTo(QueueSettings base) {
    return new QueueSettings(
        visibilityTimeout != null ? visibilityTimeout : base.visibilityTimeout(),
        maxVisibilityTimeout != null ? maxVisibilityTimeout : base.maxVisibilityTimeout(),
        maxAttempts != null ? maxAttempts : base.maxAttempts(),
        deadLetterQueue != null ? deadLetterQueue.orElse(null) : base.deadLetterQueue(),
        delay != null ? delay : base.delay(),
        ttl != null ? ttl.filter(d -> !d.isZero()).orElse(null) : base.ttl(),
        consumerTokens != null ? consumerTokens : base.consumerTokens());
  }
}
