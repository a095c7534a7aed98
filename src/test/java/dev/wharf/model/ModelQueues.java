package dev.wharf.model;

import dev.wharf.core.QueueSettingsPatch;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The queues of a run and their settings as docs/api.md says a change of them works: refused as
 * a whole when the result breaks a rule, a DLQ named but missing made with a DLQ's defaults.
 * A change touches no message already there: a DLQ, a TTL and a delay count for what dies or is
 * published from then on, a lease length for leases granted from then on, and max_attempts is
 * read when a message's attempt ends, so it reaches messages already leased.
 */
final class ModelQueues {
  /** In creation order, which a run iterates: a seed picks among them reproducibly. */
  private final Map<String, QueueSpec> specs = new LinkedHashMap<>();

  ModelQueues() {
    QueueSpec.INITIAL.forEach(s -> specs.put(s.name(), s));
  }

  QueueSpec spec(String name) {
    QueueSpec s = specs.get(name);
    if (s == null) {
      throw new IllegalStateException("the model has no queue " + name);
    }
    return s;
  }

  List<String> names() {
    return List.copyOf(specs.keySet());
  }

  /** Applies a change; returns why the broker must refuse it (nothing changed then), or null. */
  String change(String queue, QueueSettingsPatch patch) {
    QueueSpec next = spec(queue).with(patch);
    List<String> problems = new ArrayList<>();
    if (next.visibilityMs() > next.maxVisibilityMs()) {
      problems.add("visibility_timeout above max_visibility_timeout");
    }
    if (next.ttlMs() != null && next.delayMs() >= next.ttlMs()) {
      problems.add("delay not shorter than ttl");
    }
    if (queue.equals(next.deadLetterQueue())) {
      problems.add("its own dead-letter queue");
    } else if (leadsBack(queue, next.deadLetterQueue())) {
      problems.add("dead_letter_queue leads back");
    }
    if (!problems.isEmpty()) {
      return String.join("; ", problems);
    }
    specs.put(queue, next);
    String dlq = next.deadLetterQueue();
    if (dlq != null && !specs.containsKey(dlq)) {
      specs.put(dlq, QueueSpec.deadLetterQueue(dlq));
    }
    return null;
  }

  private boolean leadsBack(String queue, String dlq) {
    Set<String> seen = new HashSet<>();
    for (String q = dlq; q != null && seen.add(q); ) {
      if (q.equals(queue)) {
        return true;
      }
      QueueSpec s = specs.get(q);
      q = s == null ? null : s.deadLetterQueue();
    }
    return false;
  }
}
