package dev.wharf.core;

import static dev.wharf.core.StoreCalls.guard;

import java.util.List;
import java.util.function.Consumer;

/**
 * Making, changing and deleting queues, from the API, the config file or another node, and what
 * each change ends: the waits of consumers authorised under the old settings, on the queue and
 * on the dead-letter queues it feeds or fed, and for a deleted queue its wake, meters and depths.
 */
final class QueueChanges {
  private final QueueRegistry queues;
  private final Waiters waiters;
  private final BrokerMetrics metrics;
  private final QueueDepths depths;
  private final DelayedWakes wakes;
  /** Starts the depth gauges of a queue made or loaded. */
  private final Consumer<String> watch;

  QueueChanges(
      QueueRegistry queues,
      Waiters waiters,
      BrokerMetrics metrics,
      QueueDepths depths,
      DelayedWakes wakes,
      Consumer<String> watch) {
    this.queues = queues;
    this.waiters = waiters;
    this.metrics = metrics;
    this.depths = depths;
    this.wakes = wakes;
    this.watch = watch;
  }

  /**
   * Another node changed queues: take its settings, and forget queues it deleted. Waits here end
   * as they would had the change been made on this node.
   */
  void reloadQueues() {
    for (QueueRegistry.Changed c : queues.reload()) {
      if (c.after() == null) {
        deleted(c.queue(), c.before());
      } else {
        settingsChanged(c.queue(), c.before(), c.after());
      }
    }
    queues.names().forEach(watch);
  }

  /** As {@link Broker#putQueue}. */
  boolean putQueue(String queue, QueueSettingsPatch patch) {
    List<String> problems = patch.problems();
    if (!problems.isEmpty()) {
      throw new BrokerException.Invalid(String.join("; ", problems));
    }
    QueueRegistry.Patched p =
        guard(
            () ->
                queues.patch(
                    queue,
                    current ->
                        patch.applyTo(
                            current != null ? current : QueueSettings.defaultsFor(queue))));
    watch.accept(queue);
    settingsChanged(queue, p.before(), p.after());
    return p.before() == null;
  }

  /**
   * Ends the waits of consumers parked on the queue and on its dead-letter queues, old and new:
   * a DLQ's consumers are authorised by the tokens of the queues that feed it.
   */
  private void settingsChanged(String queue, QueueSettings before, QueueSettings after) {
    waiters.settingsChanged(queue);
    if (before != null && before.deadLetterQueue() != null) {
      oldDeadLetterQueueChanged(before.deadLetterQueue());
    }
    if (after.deadLetterQueue() != null) {
      waiters.settingsChanged(after.deadLetterQueue());
    }
  }

  /**
   * A DLQ that a queue fed may have taken its tokens as its own ({@code QueueRegistry}), which
   * then guard the DLQ's own DLQ too: the consumers of both are checked again.
   */
  private void oldDeadLetterQueueChanged(String dlq) {
    waiters.settingsChanged(dlq);
    QueueSettings s = queues.find(dlq);
    if (s != null && s.deadLetterQueue() != null) {
      waiters.settingsChanged(s.deadLetterQueue());
    }
  }

  /** As {@link Broker#applyConfiguredQueue}. */
  void applyConfiguredQueue(
      String queue, QueueSettings settings, QueueSettingsPatch named) {
    String hash = configHash(named);
    QueueSettings current = queues.find(queue);
    if (current == null || !hash.equals(queues.configHash(queue))) {
      QueueSettings next = current == null ? settings : named.applyTo(current);
      List<String> problems = next.problems(queue);
      if (!problems.isEmpty()) {
        throw new BrokerException.Invalid("the config file's settings for queue " + queue
            + ", with those it does not name as they stand, do not go together: "
            + String.join("; ", problems) + " (name them in the file)");
      }
      queues.put(queue, next, hash);
      settingsChanged(queue, current, next);
    }
    watch.accept(queue);
  }

  /** Whether the entry for {@code queue} was applied as it reads now ({@code named}). */
  boolean configApplied(String queue, QueueSettingsPatch named) {
    return queues.find(queue) != null && configHash(named).equals(queues.configHash(queue));
  }

  /**
   * What tells a config entry's change: a digest of the settings it names (not of the defaults
   * around them, which would hide {@code consumer_tokens: []} written out where none were named).
   */
  static String configHash(QueueSettingsPatch named) {
    try {
      byte[] d = java.security.MessageDigest.getInstance("SHA-256")
          .digest(named.canonical().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(d, 0, 12);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  boolean deleteQueue(String queue) {
    QueueSettings before = queues.find(queue);
    boolean existed = guard(() -> queues.delete(queue));
    deleted(queue, before);
    return existed;
  }

  private void deleted(String queue, QueueSettings before) {
    wakes.forgetWake(queue);
    metrics.forget(queue);
    depths.forget(queue);
    // Its long-polls answer now (queue not found) instead of holding their connections, and
    // everything a parked request keeps, until their waits run out.
    waiters.deleted(queue);
    if (before != null && before.deadLetterQueue() != null) {
      oldDeadLetterQueueChanged(before.deadLetterQueue());
    }
  }
}
