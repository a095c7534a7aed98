package dev.wharf.core;

import static dev.wharf.core.StoreCalls.guard;

import dev.wharf.store.Store;
import dev.wharf.store.VisibleElsewhere;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Wakes for messages that become visible later: delayed publishes, nacks with a delay, and
 * those another node made. Parked consumers wait on a queue's epoch, not on the clock, so a
 * message that comes due wakes nobody unless a timer here does; this holds those timers, one a
 * queue at most.
 */
final class DelayedWakes {
  private static final Logger LOG = Logger.getLogger(DelayedWakes.class.getName());

  private final Store store;
  private final InstantSource clock;
  private final QueueRegistry queues;
  private final Waiters waiters;
  private final ScheduledExecutorService timers;

  DelayedWakes(
      Store store,
      InstantSource clock,
      QueueRegistry queues,
      Waiters waiters,
      ScheduledExecutorService timers) {
    this.store = store;
    this.clock = clock;
    this.queues = queues;
    this.waiters = waiters;
    this.timers = timers;
  }

  /** Whether the store knows the queue holds nothing ready; a store that fails knows nothing. */
  boolean knownEmpty(String queue) {
    try {
      return store.knownEmpty(queue);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Wakes consumers for messages visible now, and schedules a wake for ones visible later. That
   * one is scheduled whoever waits now: a consumer between two parks (woken, or taken for a
   * hand-over) is out of the list for a moment, and it is one pending wake a queue at most.
   */
  void madeVisible(String queue, int now, Instant later) {
    if (now > 0) {
      waiters.wake(queue, now);
    }
    if (later != null) {
      // Counted from just before they come due, not from now: heard late (another node's, or a
      // write slower than its delay), they may be due already.
      Instant asked = clock.instant();
      Instant justBefore = later.minusMillis(1);
      scheduleWake(queue, later, justBefore.isBefore(asked) ? justBefore : asked);
    }
  }

  /**
   * Another node made messages visible (see {@link Store#onVisibleElsewhere}): as {@link
   * #madeVisible}, counting a full receive's worth of messages when it could not say how many.
   */
  void visibleElsewhere(String queue, int messages, Instant later) {
    boolean known = messages != VisibleElsewhere.UNKNOWN;
    madeVisible(queue, known ? messages : BrokerOptions.MAX_RECEIVE_BATCH, later);
  }

  /**
   * Schedules a wake for the queue's next delayed message, for a consumer about to park. A queue
   * the store knows empty has none; a read that fails costs the consumer only this wake (it is
   * woken by publishes still, or its wait runs out), not its answer.
   */
  void scheduleWakeForDelayed(String queue, Instant now) {
    if (knownEmpty(queue)) {
      return;
    }
    Optional<Instant> next;
    try {
      next = guard(() -> store.messagesNextVisible(queue, now));
    } catch (RuntimeException e) {
      LOG.log(Level.FINE, "could not read when " + queue + "'s next delayed message is due", e);
      return;
    }
    next.ifPresent(t -> scheduleWake(queue, t, now));
  }

  /**
   * A wake of a queue's consumers scheduled for when a delayed message becomes visible. It wakes
   * as many as the messages that came due after {@code from} can serve: those due before were
   * visible when it was asked for, and were woken for, or claimed, then.
   */
  private static final class PendingWake {
    final Instant at;
    /** Moved earlier, never later, while it waits: see {@link #scheduleWake}. */
    volatile Instant from;
    volatile ScheduledFuture<?> task;

    PendingWake(Instant at, Instant from) {
      this.at = at;
      this.from = from;
    }
  }

  /** Counted at most, when a wake sizes itself: a hundred full receives. */
  private static final int MAX_DUE_COUNTED = BrokerOptions.MAX_RECEIVE_BATCH * 100;

  /**
   * At most one per queue, the earliest asked for: each delayed publish or nack, and each
   * consumer that parks, asks for one, and a task each would live until its time (days, for a
   * long delay). When it fires it asks the store for the next time a message becomes visible and
   * schedules that, as long as consumers wait.
   */
  private final Map<String, PendingWake> wakes = new ConcurrentHashMap<>();

  private void scheduleWake(String queue, Instant at, Instant from) {
    wakes.compute(
        queue,
        (q, pending) -> {
          if (queues.find(q) == null) {
            // Another node's delayed messages in a queue this node does not know (yet, or any
            // more), or a publish that ran into the deletion: a timer would outlive the queue,
            // days for a long delay. In the map's lock for the name, so a deletion either comes
            // after this and cancels what it made, or came before and nothing is made.
            return pending;
          }
          if (pending != null && !pending.at.isAfter(at)) {
            // It fires first, and then schedules what comes after it; it counts from the earlier
            // of the two, so messages heard of late are among those it wakes for.
            if (from.isBefore(pending.from)) {
              pending.from = from;
            }
            return pending;
          }
          if (pending != null) {
            pending.task.cancel(false);
          }
          PendingWake next =
              new PendingWake(at, pending != null && pending.from.isBefore(from) ? pending.from
                  : from);
          // To the nanosecond: a wake a moment early finds the message not yet visible.
          long nanos = Math.max(0, Duration.between(clock.instant(), at).toNanos());
          next.task = timers.schedule(() -> fire(q, next), nanos, TimeUnit.NANOSECONDS);
          return next;
        });
  }

  private void fire(String queue, PendingWake self) {
    boolean waiting = waiters.hasWaiters(queue);
    Instant now = clock.instant();
    try {
      // Many messages may come due at one instant, more than a hundred parked consumers take:
      // woken for a fixed number, the rest would wait out their timeouts beside ready messages.
      // The floor covers messages that came due as this wake was being asked for.
      int due = waiting ? comeDue(queue, self.from, now) : 0;
      waiters.wake(queue, Math.max(due, BrokerOptions.MAX_RECEIVE_BATCH));
    } finally {
      // Only now may another wake be scheduled in its place; the store is asked after, so a
      // delayed message made while this one ran is not missed.
      wakes.remove(queue, self);
    }
    if (waiting || waiters.hasWaiters(queue)) {
      scheduleWakeForDelayed(queue, now);
    }
  }

  /** How many messages came due after {@code from}; 0 when the store cannot tell. */
  private int comeDue(String queue, Instant from, Instant now) {
    try {
      return guard(() -> store.messagesVisibleBetween(queue, from, now, MAX_DUE_COUNTED));
    } catch (RuntimeException e) {
      LOG.log(Level.FINE, "could not count the messages due in " + queue, e);
      return 0;
    }
  }

  /** Drops a deleted queue's pending wake. */
  void forgetWake(String queue) {
    PendingWake pending = wakes.remove(queue);
    if (pending != null) {
      pending.task.cancel(false);
    }
  }
}
