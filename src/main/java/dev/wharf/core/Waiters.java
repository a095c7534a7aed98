package dev.wharf.core;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/** Parked consumers of every queue, with the global bound on how many may park at once. */
final class Waiters {
  private final ConcurrentHashMap<String, QueueWaiters> byQueue = new ConcurrentHashMap<>();
  private final AtomicInteger parked = new AtomicInteger();
  private final int limit;
  private final Predicate<String> exists;

  /**
   * @param exists whether a queue exists now; a deletion says so before {@link #deleted}
   */
  Waiters(int limit, Predicate<String> exists) {
    this.limit = limit;
    this.exists = exists;
  }

  /**
   * The list of a queue that exists, made on first use; throws {@link
   * BrokerException.QueueNotFound} rather than make one for a queue that does not. The check is
   * in the map's lock for the name: a receive that found the queue there before a deletion has
   * made its list before {@link #deleted} removes it, and one that comes after makes none that
   * nothing would remove.
   */
  QueueWaiters of(String queue) {
    return byQueue.computeIfAbsent(
        queue,
        q -> {
          if (!exists.test(q)) {
            throw new BrokerException.QueueNotFound(q);
          }
          return new QueueWaiters();
        });
  }

  /** Wakes consumers of one queue; a no-op when nobody ever waited on it. */
  void wake(String queue, int messages) {
    QueueWaiters w = byQueue.get(queue);
    if (w != null && messages > 0) {
      w.wake(messages);
    }
  }

  /**
   * Takes consumers parked on a queue for a publisher to hand {@code messages} new messages to;
   * none when nobody waits.
   */
  List<QueueWaiters.Waiter> take(String queue, int messages) {
    QueueWaiters w = byQueue.get(queue);
    return w == null || messages <= 0 ? List.of() : w.take(messages);
  }

  /**
   * Wakes every consumer parked on a queue that was just deleted, and forgets it: a queue made
   * again under its name starts a list of its own, and a server that makes and deletes queues
   * all day keeps none of theirs. A receive that looked the queue up before the deletion holds
   * the old list, whose epoch this wake moves, so it never parks there for long.
   */
  void deleted(String queue) {
    QueueWaiters w = byQueue.remove(queue);
    if (w != null) {
      w.drop();
    }
  }

  /** Ends the waits of every consumer parked on a queue whose settings or tokens changed. */
  void settingsChanged(String queue) {
    QueueWaiters w = byQueue.get(queue);
    if (w != null) {
      w.settingsChanged();
    }
  }

  /** Wakes every consumer parked on any queue (the server stops: none may wait on). */
  void wakeEverywhere() {
    byQueue.values().forEach(QueueWaiters::wakeAll);
  }

  boolean hasWaiters(String queue) {
    return parkedOn(queue) > 0;
  }

  int parkedOn(String queue) {
    QueueWaiters w = byQueue.get(queue);
    return w == null ? 0 : w.size();
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

  /** Throws, as {@link #enter()} would, when no parking slot is free now. */
  void requireRoom() {
    if (parked.get() >= limit) {
      throw new BrokerException.TooManyWaiters(limit);
    }
  }

  /** Queues with a list (for tests: a deleted queue must leave none). */
  int queuesWithLists() {
    return byQueue.size();
  }

  int parkedCount() {
    return parked.get();
  }
}
