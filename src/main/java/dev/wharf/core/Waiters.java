package dev.wharf.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Parked consumers of every queue, with the global bound on how many may park at once. */
final class Waiters {
  private final ConcurrentHashMap<String, QueueWaiters> byQueue = new ConcurrentHashMap<>();
  private final AtomicInteger parked = new AtomicInteger();
  private final int limit;

  Waiters(int limit) {
    this.limit = limit;
  }

  QueueWaiters of(String queue) {
    return byQueue.computeIfAbsent(queue, q -> new QueueWaiters());
  }

  /** Wakes consumers of one queue; a no-op when nobody ever waited on it. */
  void wake(String queue, int messages) {
    QueueWaiters w = byQueue.get(queue);
    if (w != null && messages > 0) {
      w.wake(messages);
    }
  }

  /** Wakes every consumer parked on a queue that was just deleted. */
  void wakeAll(String queue) {
    QueueWaiters w = byQueue.get(queue);
    if (w != null) {
      w.wakeAll();
    }
  }

  boolean hasWaiters(String queue) {
    QueueWaiters w = byQueue.get(queue);
    return w != null && w.size() > 0;
  }

  /** Takes a parking slot, or throws when the bound is reached. Pair with {@link #leave()}. */
  void enter() {
    if (parked.incrementAndGet() > limit) {
      parked.decrementAndGet();
      throw new BrokerException.TooManyWaiters(limit);
    }
  }

  void leave() {
    parked.decrementAndGet();
  }

  int parkedCount() {
    return parked.get();
  }
}
