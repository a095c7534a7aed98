package dev.wharf.concurrency;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every thread of a run saw, per message id. Ticks come from one counter, so "this call
 * began before that one returned" can be told across threads without trusting any clock.
 */
final class Ledger {
  private final AtomicLong ticks = new AtomicLong();
  private final Map<String, List<Published>> publishes = new ConcurrentHashMap<>();
  private final Map<String, List<Delivered>> deliveries = new ConcurrentHashMap<>();
  /** Failures that are not a broken invariant of the state machine but still fail the run. */
  private final List<String> surprises = new ArrayList<>();

  long tick() {
    return ticks.incrementAndGet();
  }

  synchronized void published(Published p) {
    publishes.computeIfAbsent(p.id(), k -> new ArrayList<>()).add(p);
  }

  synchronized void delivered(Delivered d) {
    deliveries.computeIfAbsent(d.id, k -> new ArrayList<>()).add(d);
  }

  synchronized void surprise(String what) {
    surprises.add(what);
  }

  synchronized List<String> surprises() {
    return List.copyOf(surprises);
  }

  /** Every id a publish answered, each with the publishes that answered it. */
  synchronized Map<String, List<Published>> publishes() {
    Map<String, List<Published>> copy = new HashMap<>();
    publishes.forEach((id, list) -> copy.put(id, List.copyOf(list)));
    return copy;
  }

  /** Every id delivered, each with its deliveries. */
  synchronized Map<String, List<Delivered>> deliveries() {
    Map<String, List<Delivered>> copy = new HashMap<>();
    deliveries.forEach((id, list) -> copy.put(id, List.copyOf(list)));
    return copy;
  }
}
