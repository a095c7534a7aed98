package dev.wharf.model;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.core.QueueSettings;
import dev.wharf.core.QueueSettingsPatch;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Changes of a published queue's settings in the middle of a run, each told to the broker and to
 * {@link ModelQueues}, which says whether it must be refused; what a change does to the messages
 * already there is the model's to say when they next move ({@link QueueModel}).
 */
final class SettingsChanges {
  private final RandomInputs random;
  private final ModelQueues queues;
  private final Trace trace;

  SettingsChanges(RandomInputs random, ModelQueues queues, Trace trace) {
    this.random = random;
    this.queues = queues;
    this.trace = trace;
  }

  /**
   * Returns the queues whose parked consumers the change answers (docs/api.md, Auth): its own,
   * and the DLQs it fed and feeds now, with the old DLQ's own DLQ; none when it is refused.
   */
  Set<String> changeOne(Broker broker) {
    String queue = random.pick(QueueSpec.PUBLISHED);
    QueueSettingsPatch patch = random.settingsPatch(queue);
    trace.add("putQueue(\"" + queue + "\", " + patch + ")");
    QueueSpec before = queues.spec(queue);
    String refused = queues.change(queue, patch);
    try {
      broker.putQueue(queue, patch);
    } catch (BrokerException.Invalid e) {
      trace.add("  -> invalid: " + e.getMessage());
      trace.expect(refused != null, true, "putQueue refused (model: " + refused + ")");
      return Set.of();
    }
    trace.expect(refused, null, "putQueue refused");
    trace.add("  -> " + broker.settings(queue));
    Set<String> woken = new HashSet<>(List.of(queue));
    String oldDlq = before.deadLetterQueue();
    if (oldDlq != null) {
      woken.add(oldDlq);
      String next = queues.spec(oldDlq).deadLetterQueue();
      if (next != null) {
        woken.add(next);
      }
    }
    String newDlq = queues.spec(queue).deadLetterQueue();
    if (newDlq != null) {
      woken.add(newDlq);
    }
    return woken;
  }

  /** Every queue, DLQs made on demand included, with the settings the model gave it. */
  void compareAll(Broker broker) {
    trace.expect(queues.names().stream().sorted().toList(), broker.queueNames(), "queues");
    for (String q : queues.names()) {
      trace.expect(queues.spec(q), spec(q, broker.settings(q)), "settings of " + q);
    }
  }

  private static QueueSpec spec(String name, QueueSettings s) {
    return new QueueSpec(name, s.visibilityTimeout().toMillis(),
        s.maxVisibilityTimeout().toMillis(), s.maxAttempts(), s.deadLetterQueue(),
        s.delay().toMillis(), s.ttl() == null ? null : s.ttl().toMillis());
  }
}
