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

  /**
   * The settings named, in a fixed order and form, and nothing of the others: a config entry that
   * comes to name a key, even with the value it had, or to clear one ({@code consumer_tokens:
   * []}), reads as changed. Lengths prefix the texts, so no token can pass for a delimiter.
   */
  public String canonical() {
    StringBuilder b = new StringBuilder();
    if (visibilityTimeout != null) {
      b.append("visibility_timeout ").append(visibilityTimeout.toMillis()).append('\n');
    }
    if (maxVisibilityTimeout != null) {
      b.append("max_visibility_timeout ").append(maxVisibilityTimeout.toMillis()).append('\n');
    }
    if (maxAttempts != null) {
      b.append("max_attempts ").append(maxAttempts).append('\n');
    }
    if (deadLetterQueue != null) {
      b.append("dead_letter_queue ")
          .append(deadLetterQueue.map(q -> q.length() + ":" + q).orElse("none"))
          .append('\n');
    }
    if (delay != null) {
      b.append("delay ").append(delay.toMillis()).append('\n');
    }
    if (ttl != null) {
      String millis =
          ttl.filter(d -> !d.isZero()).map(d -> String.valueOf(d.toMillis())).orElse("none");
      b.append("ttl ").append(millis).append('\n');
    }
    if (consumerTokens != null) {
      b.append("consumer_tokens ").append(consumerTokens.size());
      consumerTokens.forEach(t -> b.append(' ').append(t.length()).append(':').append(t));
      b.append('\n');
    }
    return b.toString();
  }

  /**
   * What is wrong with the tokens this change sets, beyond what {@link QueueSettings#problems}
   * finds in any settings: a token set now must be ASCII ({@link BearerTokens}), while one stored
   * before that rule stays, and a change of the queue's other settings does not touch it.
   */
  public List<String> problems() {
    List<String> out = new java.util.ArrayList<>();
    if (consumerTokens != null) {
      for (int i = 0; i < consumerTokens.size(); i++) {
        String t = consumerTokens.get(i);
        String problem = t == null ? null : BearerTokens.beyondAscii(t);
        if (problem != null) {
          out.add("consumer_tokens[" + i + "]: " + problem);
        }
      }
    }
    return out;
  }

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
