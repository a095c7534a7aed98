package dev.wharf.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Dead-letter queues that lead back to where they started. A message moved into a DLQ starts its
 * attempts again there, so in a loop one that keeps failing moves round it forever (and loses
 * the queue it came from on the second move): such settings are refused, from the API and the
 * config file alike.
 */
public final class DeadLetterLoops {
  private DeadLetterLoops() {}

  /**
   * The problem with giving {@code queue} the settings {@code s} when its DLQs lead back to it,
   * else null.
   *
   * @param settingsOf the settings of the other queues by name; null for a queue not there (a DLQ
   *     yet to be made has no DLQ of its own)
   */
  public static String problem(
      String queue, QueueSettings s, Function<String, QueueSettings> settingsOf) {
    String next = s.deadLetterQueue();
    if (next == null || next.equals(queue)) {
      // No DLQ, or itself: that one the settings refuse on their own.
      return null;
    }
    List<String> path = new ArrayList<>(List.of(queue));
    Set<String> onPath = new HashSet<>(path);
    while (next != null) {
      boolean seen = !onPath.add(next);
      path.add(next);
      if (next.equals(queue)) {
        return "dead_letter_queue: leads back to this queue ("
            + shown(path)
            + "), where a message that keeps failing would move round forever";
      }
      if (seen) {
        // A loop among other queues, not through this one: theirs to fix.
        return null;
      }
      QueueSettings n = settingsOf.apply(next);
      next = n == null ? null : n.deadLetterQueue();
    }
    return null;
  }

  /** The loop's queues, its middle left out when long: each queue of a long loop reports it. */
  private static String shown(List<String> path) {
    if (path.size() <= 12) {
      return String.join(" -> ", path);
    }
    return String.join(" -> ", path.subList(0, 5))
        + " -> ... -> "
        + String.join(" -> ", path.subList(path.size() - 5, path.size()))
        + ", " + (path.size() - 1) + " queues";
  }
}
