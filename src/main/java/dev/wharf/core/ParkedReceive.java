package dev.wharf.core;

import dev.wharf.store.Delivery;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A receive that waits with no thread of its own: a parked long-poll is this object and a waiter
 * in its queue's list, not a blocked thread and its stack. A hand-over of messages is answered on
 * the publisher's completion thread; a wake (which must claim) or the timeout runs the next step
 * on a fresh virtual thread. Each waiter ends one way (left, woken, taken) by one compare-and-set
 * in {@link QueueWaiters}, so exactly one of them carries on.
 *
 * <p>Cancelling the result (the consumer went away) takes the waiter out if nothing took it
 * yet; if a publisher did, the messages it handed over are released at once. When the server
 * stops, the wake it sends every waiter ends the receive with nothing, no claim made.
 */
final class ParkedReceive {
  private final Receives receives;
  private final QueueWaiters waiters;
  private final ScheduledExecutorService timers;
  private final String queue;
  private final int max;
  private final Duration lease;
  private final Duration wait;
  private final long started;
  private final long deadline;
  private final long settingsGeneration;
  private final CompletableFuture<List<Delivery>> result;
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile QueueWaiters.Waiter current;
  private volatile ScheduledFuture<?> timeout;

  ParkedReceive(
      Receives receives,
      QueueWaiters waiters,
      ScheduledExecutorService timers,
      String queue,
      int max,
      Duration lease,
      Duration wait,
      long startedNanos,
      long settingsMark,
      CompletableFuture<List<Delivery>> result) {
    this.receives = receives;
    this.waiters = waiters;
    this.timers = timers;
    this.queue = queue;
    this.max = max;
    this.lease = lease;
    this.wait = wait;
    this.started = startedNanos;
    this.deadline = startedNanos + wait.toNanos();
    this.settingsGeneration = settingsMark;
    this.result = result;
    result.whenComplete(
        (r, e) -> {
          if (result.isCancelled()) {
            abandon();
          }
        });
  }

  /** Ends the receive with a failure before it parked (it holds no parking slot). */
  void fail(RuntimeException e) {
    result.completeExceptionally(e);
  }

  /** Parks until a commit after {@code epoch} makes messages visible, or the wait runs out. */
  void park(long epoch) {
    if (waiters.settingsGeneration() != settingsGeneration || waiters.dropped()) {
      // Changed since the consumer was authorised: no wake of that change will come to it. Or
      // its queue was deleted (and made again, or the claim before would have failed): it ends
      // as a change ends it, and the consumer asks the queue there is now.
      finish(List.of());
      return;
    }
    QueueWaiters.Waiter w = QueueWaiters.callback(max, lease, this::signalled);
    current = w;
    timeout =
        timers.schedule(
            () -> expire(w), Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    waiters.register(w, epoch);
    if (result.isDone()) {
      abandon();
    }
  }

  /** On the waker's thread: must not block. */
  private void signalled() {
    ScheduledFuture<?> t = timeout;
    if (t != null) {
      t.cancel(false);
    }
    QueueWaiters.Waiter w = current;
    List<Delivery> handed = w.taken() ? w.handed().getNow(null) : null;
    if (handed != null && !handed.isEmpty()
        && waiters.settingsGeneration() == settingsGeneration) {
      // A publisher's hand-over, its write done: the answer needs no claim, so no thread.
      finish(handed);
      return;
    }
    Thread.ofVirtual().name("wharf-receive").start(this::afterSignal);
  }

  private void expire(QueueWaiters.Waiter w) {
    if (waiters.leave(w)) {
      Thread.ofVirtual().name("wharf-receive").start(() -> claim(true));
    }
  }

  private void afterSignal() {
    QueueWaiters.Waiter w = current;
    if (w.taken()) {
      // Completed before the signal: the publisher's write has returned.
      List<Delivery> handed = w.handed().join();
      if (!handed.isEmpty()) {
        if (waiters.settingsGeneration() != settingsGeneration) {
          // Handed over just as the settings changed: not under the old ones.
          receives.releaseQuietly(queue, handed);
          finish(List.of());
          return;
        }
        finish(handed);
        return;
      }
    }
    claim(false);
  }

  /** Claims once more; answers with what it got, or parks again while time is left. */
  private void claim(boolean last) {
    if (result.isDone()) {
      end();
      if (!last) {
        // Its consumer left as it was woken: the wake was for messages another waiter can take.
        waiters.wake(max);
      }
      return;
    }
    try {
      receives.requireQueue(queue);
      long epoch = waiters.epoch();
      if (receives.stopping()) {
        // The server stops (read after the epoch, so a stop after this moves it and wakes a
        // park): the wait ends with nothing, and nothing is leased for an answer that may not
        // reach its consumer.
        finish(List.of());
        return;
      }
      if (waiters.settingsGeneration() != settingsGeneration) {
        // The queue's settings or tokens changed while it waited: a token revoked meanwhile must
        // not receive, nor a lease outlast a new maximum. The consumer asks again, and is
        // authorised and leased by the new ones.
        finish(List.of());
        return;
      }
      if (last && receives.knownEmpty(queue)) {
        // The wait ran out on a queue that holds nothing: a claim would write nothing.
        finish(List.of());
        return;
      }
      Instant now = receives.now();
      List<Delivery> got = receives.claimAt(queue, max, lease, now);
      if (!got.isEmpty() || last || System.nanoTime() >= deadline) {
        finish(got);
      } else {
        // A delayed message made while this consumer was between parks found no one waiting.
        receives.scheduleWakeForDelayed(queue, now);
        park(epoch);
      }
    } catch (RuntimeException e) {
      end();
      result.completeExceptionally(e);
    }
  }

  private void finish(List<Delivery> got) {
    end();
    if (!result.complete(receives.waited(wait, started, got))) {
      // Nobody is left to answer: the leases go back at once, uncounted.
      receives.releaseQuietly(queue, got);
    }
  }

  /** The consumer left: stop waiting, unless a wake or a take already carries on. */
  private void abandon() {
    QueueWaiters.Waiter w = current;
    if (w != null && waiters.leave(w)) {
      ScheduledFuture<?> t = timeout;
      if (t != null) {
        t.cancel(false);
      }
      end();
    }
  }

  /** Gives back the parking slot, once. */
  private void end() {
    if (ended.compareAndSet(false, true)) {
      receives.leftWaiting();
    }
  }
}
