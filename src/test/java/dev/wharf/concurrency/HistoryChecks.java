package dev.wharf.concurrency;

import dev.wharf.store.LeaseOutcome.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The invariants that the ledger alone can be checked against, whatever the store holds: leases
 * never overlap, an acked message is never delivered again, attempts count one per delivery,
 * idempotency keys answer one id. Each broken one is described in a line.
 */
final class HistoryChecks {
  private final Ledger ledger;
  private final String queue;
  private final int maxAttempts;
  private final List<String> problems = new ArrayList<>();

  HistoryChecks(Ledger ledger, String queue, int maxAttempts) {
    this.ledger = ledger;
    this.queue = queue;
    this.maxAttempts = maxAttempts;
  }

  List<String> run() {
    Map<String, List<Published>> pubs = ledger.publishes();
    publishes(pubs);
    ledger.deliveries().forEach((id, ds) -> {
      if (!pubs.containsKey(id)) {
        problems.add(id + " was delivered but no publish answered it");
        return;
      }
      Set<String> payloads = new HashSet<>();
      pubs.get(id).forEach(p -> payloads.add(p.payload()));
      for (Delivered d : ds) {
        if (!d.queue.equals(queue)) {
          problems.add(id + " delivered from " + d.queue);
        }
        if (!payloads.contains(d.payload)) {
          problems.add(id + " delivered with a payload no publish of it had: " + d.payload);
        }
      }
      leasesNeverOverlap(id, ds);
      ackedIsLast(id, ds);
      attemptsCountUp(id, ds);
    });
    return problems;
  }

  /**
   * Invariant 1. Of two deliveries of one message, one lease must have ended before the other
   * delivery was answered: settled by a call begun before that answer, or expired by the clock
   * read after it (a reaper can end a lease only at a now at or past its end).
   */
  private void leasesNeverOverlap(String id, List<Delivered> ds) {
    for (int i = 0; i < ds.size(); i++) {
      for (int j = i + 1; j < ds.size(); j++) {
        Delivered a = ds.get(i);
        Delivered b = ds.get(j);
        if (!endedBefore(a, b) && !endedBefore(b, a)) {
          problems.add(id + " held under two leases at once:\n    " + a + "\n    " + b);
        }
      }
    }
  }

  private static boolean endedBefore(Delivered a, Delivered b) {
    Settled end = a.end();
    if (end != null && end.outcome() != Outcome.ACKED && end.startTick() < b.endTick) {
      return true;
    }
    return a.maxUntil() <= b.clockAfter;
  }

  /** Invariant 2: an ack answered ACKED is followed by no delivery. */
  private void ackedIsLast(String id, List<Delivered> ds) {
    for (Delivered a : ds) {
      Settled end = a.end();
      if (end == null || end.outcome() != Outcome.ACKED) {
        continue;
      }
      for (Delivered b : ds) {
        if (b != a && !endedBefore(b, a)) {
          problems.add(id + " delivered again after its ack:\n    acked " + a + "\n    then " + b);
        }
      }
    }
  }

  /**
   * Invariant 5. Attempts run 1, 2, ... up to max_attempts; every attempt but the last is
   * ended once by a retry or an expiry, and repeated only after a defer or a release.
   */
  private void attemptsCountUp(String id, List<Delivered> ds) {
    TreeMap<Integer, List<Delivered>> byAttempt = new TreeMap<>();
    ds.forEach(d -> byAttempt.computeIfAbsent(d.attempt, k -> new ArrayList<>()).add(d));
    int top = byAttempt.lastKey();
    if (byAttempt.firstKey() != 1 || byAttempt.size() != top || top > maxAttempts) {
      problems.add(id + " attempts seen " + byAttempt.keySet() + " (max_attempts " + maxAttempts
          + "): " + ds);
      return;
    }
    byAttempt.forEach((attempt, group) -> {
      List<Delivered> counted = group.stream()
          .filter(d -> d.end() == null || !Expected.returnedUncounted(d.end()))
          .toList();
      if (attempt < top) {
        boolean retried = counted.size() == 1
            && (counted.get(0).end() == null
                || counted.get(0).end().outcome() == Outcome.RETRIED);
        if (!retried) {
          problems.add(id + " attempt " + attempt + " was followed by attempt " + (attempt + 1)
              + " without one retry or expiry: " + group);
        }
      } else if (counted.size() > 1) {
        problems.add(id + " last attempt " + attempt + " counted twice: " + group);
      }
    });
  }

  /**
   * Every new id is answered once; an idempotency key answers one id, made by exactly one of
   * its publishes; a replacement names a message made with the same key.
   */
  private void publishes(Map<String, List<Published>> pubs) {
    Map<String, List<Published>> byIdempotencyKey = new HashMap<>();
    pubs.forEach((id, list) -> {
      long created = list.stream().filter(Published::created).count();
      if (created != 1) {
        problems.add(id + " made by " + created + " publishes: " + list);
      }
      Published maker = list.stream().filter(Published::created).findFirst().orElse(null);
      for (Published p : list) {
        if (p.replaced() && (maker == null || !p.key().equals(maker.key()))) {
          problems.add(id + " replaced by a publish of another key: " + p + " maker " + maker);
        }
        if (p.idempotencyKey() != null) {
          byIdempotencyKey.computeIfAbsent(p.idempotencyKey(), k -> new ArrayList<>()).add(p);
        }
      }
    });
    byIdempotencyKey.forEach((key, list) -> {
      long firsts = list.stream().filter(p -> !p.duplicate()).count();
      long ids = list.stream().map(Published::id).distinct().count();
      if (firsts != 1 || ids != 1) {
        problems.add("idempotency key " + key + " answered " + ids + " ids, " + firsts
            + " as new: " + list);
      }
    });
  }
}
