package dev.wharf.concurrency;

import dev.wharf.concurrency.Expected.Where;
import dev.wharf.core.Broker;
import dev.wharf.core.QueueStats;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import dev.wharf.store.QueueCounts;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compares what the broker reports at a quiescent moment (no call under way, a reaper pass at
 * {@code now} just run) with what the ledger says each message must be.
 */
final class StoreChecks {
  private final Ledger ledger;
  private final Broker broker;
  private final String queue;
  private final String dlq;
  private final int maxAttempts;

  StoreChecks(Ledger ledger, Broker broker, String queue, String dlq, int maxAttempts) {
    this.ledger = ledger;
    this.broker = broker;
    this.queue = queue;
    this.dlq = dlq;
    this.maxAttempts = maxAttempts;
  }

  /** Every published id, where it must be now. */
  Map<String, Expected> expected(long now) {
    Map<String, List<Published>> pubs = ledger.publishes();
    Map<String, List<Delivered>> deliveries = ledger.deliveries();
    Map<String, Integer> madePerKey = new HashMap<>();
    pubs.values().forEach(list -> list.stream()
        .filter(p -> p.created() && p.key() != null)
        .forEach(p -> madePerKey.merge(p.key(), 1, Integer::sum)));
    Map<String, Expected> out = new HashMap<>();
    pubs.forEach((id, list) -> {
      Published maker = list.stream().filter(Published::created).findFirst().orElse(null);
      if (maker == null) {
        return; // reported by HistoryChecks
      }
      boolean keyRemade = maker.key() != null && madePerKey.get(maker.key()) > 1;
      out.put(id, Expected.of(maker, deliveries.getOrDefault(id, List.of()), now, maxAttempts,
          keyRemade));
    });
    return out;
  }

  /** Invariant 4: the queue's counts and its DLQ's agree with the ledger. */
  List<String> stats(long now) {
    Map<String, Expected> exp = expected(now);
    long leased = 0;
    long mainSure = 0;
    long mainMaybe = 0;
    long delayedSure = 0;
    long readySure = 0;
    long dead = 0;
    for (Expected e : exp.values()) {
      if (e.leased()) {
        leased++;
      } else if (e.where() == Where.MAIN) {
        mainSure++;
        delayedSure += e.delayedSure() ? 1 : 0;
        readySure += e.readySure() ? 1 : 0;
      } else if (e.where() == Where.MAIN_OR_GONE) {
        mainMaybe++;
      } else if (e.where() == Where.DLQ) {
        dead++;
      }
    }
    List<String> problems = new ArrayList<>();
    QueueStats s = broker.stats(queue);
    QueueCounts c = s.counts();
    String seen = " (ledger: leased " + leased + ", waiting " + mainSure + " + up to " + mainMaybe
        + " superseded, of which surely delayed " + delayedSure + ", surely ready " + readySure
        + ", dead " + dead + "; stats " + c + ", dead " + s.dead() + ")";
    if (c.leased() != leased) {
      problems.add("leased " + c.leased() + seen);
    }
    long waiting = c.ready() + c.delayed();
    if (waiting < mainSure || waiting > mainSure + mainMaybe) {
      problems.add("ready + delayed " + waiting + seen);
    }
    if (c.delayed() < delayedSure || c.delayed() > mainSure - readySure) {
      problems.add("delayed " + c.delayed() + seen);
    }
    if (s.dead() != dead) {
      problems.add("dead " + s.dead() + seen);
    }
    QueueCounts d = broker.stats(dlq).counts();
    if (d.ready() != dead || d.delayed() != 0 || d.leased() != 0) {
      problems.add("DLQ counts " + d + seen);
    }
    return problems;
  }

  /**
   * Invariant 3, at the end: each published id is acked (gone), dead (in the DLQ, once), or
   * ready in its queue with the attempts the ledger counted and a payload one of its publishes
   * gave; nothing else is stored, and no key has two ready messages.
   */
  List<String> contents(long now) {
    Map<String, Expected> exp = expected(now);
    Map<String, Set<String>> payloads = new HashMap<>();
    ledger.publishes().forEach((id, list) -> {
      Set<String> p = new HashSet<>();
      list.forEach(x -> p.add(x.payload()));
      payloads.put(id, p);
    });
    List<String> problems = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    Map<String, String> readyByKey = new HashMap<>();
    for (Message m : all(queue)) {
      Expected e = exp.get(m.id());
      if (!seen.add(m.id())) {
        problems.add(m.id() + " stored twice");
      }
      if (e == null) {
        problems.add(m.id() + " stored in " + queue + " but never published");
        continue;
      }
      if (e.where() != Where.MAIN && e.where() != Where.MAIN_OR_GONE) {
        problems.add(m.id() + " is in " + queue + " as " + m.state() + " but should be "
            + e.where() + " " + e);
      }
      if (m.state() != MessageState.READY) {
        problems.add(m.id() + " is " + m.state() + " after every lease ended");
      }
      if (m.attempt() != e.attempt() || m.attempt() >= maxAttempts) {
        problems.add(m.id() + " has attempt " + m.attempt() + "; the ledger counted "
            + e.attempt() + " (max_attempts " + maxAttempts + ")");
      }
      String payload = new String(m.payload(), StandardCharsets.UTF_8);
      if (!payloads.get(m.id()).contains(payload)) {
        problems.add(m.id() + " holds a payload none of its publishes gave: " + payload);
      }
      if (m.key() != null) {
        String other = readyByKey.put(m.key(), m.id());
        if (other != null) {
          problems.add("key " + m.key() + " has two ready messages: " + other + " and " + m.id());
        }
      }
    }
    for (Message m : all(dlq)) {
      Expected e = exp.get(m.id());
      if (!seen.add(m.id())) {
        problems.add(m.id() + " stored twice (again in " + dlq + ")");
      }
      if (e == null || e.where() != Where.DLQ) {
        problems.add(m.id() + " is in " + dlq + " but should be " + e);
      } else if (!queue.equals(m.originalQueue()) || m.attempt() != 0) {
        problems.add(m.id() + " dead from " + m.originalQueue() + " attempt " + m.attempt());
      }
    }
    exp.forEach((id, e) -> {
      boolean stored = seen.contains(id);
      if (e.where() == Where.GONE && stored) {
        problems.add(id + " is stored though acked or superseded: " + e);
      } else if ((e.where() == Where.MAIN || e.where() == Where.DLQ) && !stored) {
        problems.add(id + " is lost: the ledger says " + e);
      }
    });
    return problems;
  }

  private List<Message> all(String q) {
    List<Message> out = new ArrayList<>();
    long after = 0;
    while (true) {
      List<Message> page = broker.browse(q, null, null, after, 1000);
      out.addAll(page);
      if (page.size() < 1000) {
        return out;
      }
      after = page.get(page.size() - 1).seq();
    }
  }
}
