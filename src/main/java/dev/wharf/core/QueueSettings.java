package dev.wharf.core;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A queue's settings, always complete and valid.
 *
 * @param deadLetterQueue the DLQ's name; null = none (dead messages are dropped and counted)
 * @param ttl null = messages live until consumed
 */
public record QueueSettings(
    Duration visibilityTimeout,
    Duration maxVisibilityTimeout,
    int maxAttempts,
    String deadLetterQueue,
    Duration delay,
    Duration ttl,
    List<String> consumerTokens) {

  public static final Duration DEFAULT_VISIBILITY = Duration.ofSeconds(30);
  public static final Duration DEFAULT_MAX_VISIBILITY = Duration.ofHours(12);
  public static final int DEFAULT_MAX_ATTEMPTS = 5;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  public QueueSettings {
    // A token given twice is one token: the count a queue shows is of tokens that open it.
    consumerTokens =
        consumerTokens == null
            ? List.of()
            : List.copyOf(new java.util.LinkedHashSet<>(consumerTokens));
  }

  /** These settings with {@code more} consumer tokens besides their own. */
  public QueueSettings withConsumerTokensAlso(List<String> more) {
    List<String> all = new java.util.ArrayList<>(consumerTokens);
    all.addAll(more);
    return new QueueSettings(
        visibilityTimeout, maxVisibilityTimeout, maxAttempts, deadLetterQueue, delay, ttl, all);
  }

  public static QueueSettings defaultsFor(String queue) {
    return new QueueSettings(
        DEFAULT_VISIBILITY,
        DEFAULT_MAX_VISIBILITY,
        DEFAULT_MAX_ATTEMPTS,
        queue + ".dlq",
        Duration.ZERO,
        null,
        List.of());
  }

  /** Settings for a DLQ made on demand: its messages are never dead-lettered again. */
  public static QueueSettings forDeadLetterQueue() {
    return new QueueSettings(
        DEFAULT_VISIBILITY, DEFAULT_MAX_VISIBILITY, 0, null, Duration.ZERO, null, List.of());
  }

  /** What a queue name may be, as the errors about one say it. */
  public static final String NAME_RULE =
      "must be 1-128 characters of A-Z a-z 0-9 . _ -, other than . and ..";

  public static boolean validName(String name) {
    // "." and ".." would be path segments that clients and proxies fold away before a request
    // reaches the queue.
    return name != null && NAME.matcher(name).matches() && !name.equals(".") && !name.equals("..");
  }

  /** Every problem with these settings for the named queue, empty when there is none. */
  public List<String> problems(String queue) {
    var out = new java.util.ArrayList<String>();
    if (!validName(queue)) {
      out.add("name: " + NAME_RULE);
    }
    if (visibilityTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      out.add(
          "visibility_timeout: must be at least 1s, got " + Durations.format(visibilityTimeout));
    }
    if (maxVisibilityTimeout.compareTo(visibilityTimeout) < 0) {
      // Either field may be the one just changed: the message names both values.
      out.add("visibility_timeout: must be at most max_visibility_timeout ("
          + Durations.format(maxVisibilityTimeout) + "), got "
          + Durations.format(visibilityTimeout));
    }
    boolean delayInRange = !delay.isNegative() && delay.compareTo(Duration.ofDays(30)) <= 0;
    boolean ttlInRange =
        ttl == null || !ttl.isNegative() && ttl.compareTo(Duration.ofDays(365)) <= 0;
    // Said only of values each in range: of one that is not, its range is the thing to fix.
    if (ttl != null && delayInRange && ttlInRange && delay.compareTo(ttl) >= 0) {
      out.add("delay: must be shorter than ttl (" + Durations.format(ttl) + "), got "
          + Durations.format(delay) + ": a message's time to live counts from its publish, so"
          + " every message would expire before it became visible");
    }
    if (maxVisibilityTimeout.compareTo(Duration.ofDays(7)) > 0) {
      out.add("max_visibility_timeout: must be at most 7d, got "
          + Durations.format(maxVisibilityTimeout));
    }
    if (maxAttempts < 0 || maxAttempts > 1000) {
      out.add("max_attempts: must be between 0 (unlimited) and 1000, got " + maxAttempts);
    }
    boolean derivedDlq = deadLetterQueue != null && deadLetterQueue.equals(queue + ".dlq");
    if (deadLetterQueue != null && !validName(deadLetterQueue)) {
      // A DLQ name the client never gave is not theirs to fix unless it is the only problem.
      if (!derivedDlq) {
        out.add("dead_letter_queue: not a valid queue name");
      } else if (validName(queue)) {
        out.add("dead_letter_queue: the default, the name followed by \".dlq\", would be longer"
            + " than 128 characters: name a shorter one, or \"\" for none");
      }
    }
    if (deadLetterQueue != null && deadLetterQueue.equals(queue)) {
      out.add("dead_letter_queue: a queue cannot be its own dead-letter queue");
    }
    if (!delayInRange) {
      out.add("delay: must be between 0s and 30d, got " + Durations.format(delay));
    }
    if (!ttlInRange) {
      out.add("ttl: must be between 0s and 365d, got " + Durations.format(ttl));
    }
    for (int i = 0; i < consumerTokens.size(); i++) {
      String problem = BearerTokens.neverMatches(consumerTokens.get(i));
      if (problem != null) {
        out.add("consumer_tokens[" + i + "]: " + problem);
      }
    }
    return out;
  }
}
