package dev.wharf.core;

import static dev.wharf.core.ArgumentRanges.checkRange;
import static dev.wharf.core.StoreCalls.await;
import static dev.wharf.core.StoreCalls.guarded;
import static dev.wharf.core.StoreCalls.unwrap;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.Delivery;
import dev.wharf.store.Store;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Receiving: claims leases for consumers, and parks those who wait until a publish hands them
 * messages, a wake sends them to claim again, or their wait runs out. A blocking receive waits
 * on its own thread; {@link #receiveLater} parks as a {@link ParkedReceive}, holding none. Stops
 * waiting for good once the server stops.
 */
final class Receives {
  private static final Logger LOG = Logger.getLogger(Receives.class.getName());

  private final Store store;
  private final InstantSource clock;
  private final BrokerOptions options;
  private final QueueRegistry queues;
  private final Waiters waiters;
  private final BrokerMetrics metrics;
  private final Settlements settlements;
  private final DelayedWakes wakes;
  private final ScheduledExecutorService timers;
  /** Set once by {@link #stopWaiting()}: from then on no receive waits. */
  private volatile boolean stopping;

  Receives(
      Store store,
      InstantSource clock,
      BrokerOptions options,
      QueueRegistry queues,
      Waiters waiters,
      BrokerMetrics metrics,
      Settlements settlements,
      DelayedWakes wakes,
      ScheduledExecutorService timers) {
    this.store = store;
    this.clock = clock;
    this.options = options;
    this.queues = queues;
    this.waiters = waiters;
    this.metrics = metrics;
    this.settlements = settlements;
    this.wakes = wakes;
    this.timers = timers;
  }

  /** As {@link Broker#stopWaiting}. */
  void stopWaiting() {
    stopping = true;
    // After the flag: a receive that reads its queue's epoch after this wake sees the flag.
    waiters.wakeEverywhere();
  }

  /** Whether {@link #stopWaiting()} was called: receives no longer wait. */
  boolean stopping() {
    return stopping;
  }

  /** What a receive that would wait is told once the server stops (see {@link #stopWaiting}). */
  static final String STOPPING = "the server is stopping";

  /** As {@link Broker#receive}. */
  List<Delivery> receive(String queue, int max, Duration wait, Duration visibility) {
    checkWait(wait);
    return receiveWaiting(queue, max, wait, visibility, settingsMark(queue));
  }

  /** As {@link Broker#settingsMark}. */
  long settingsMark(String queue) {
    // Known first: a name no queue has must not leave waiter state behind.
    queues.require(queue);
    return waiters.of(queue).settingsGeneration();
  }

  /** As {@link Broker#receiveRound}. */
  List<Delivery> receiveRound(
      String queue, int max, Duration wait, Duration visibility, long mark) {
    if (wait.isNegative()) {
      throw new IllegalArgumentException("a negative wait: " + wait);
    }
    return receiveWaiting(queue, max, wait, visibility, mark);
  }

  private List<Delivery> receiveWaiting(
      String queue, int max, Duration wait, Duration visibility, long generation) {
    Duration lease = checkReceive(queue, max, visibility);
    QueueWaiters w = waiters.of(queue);
    long started = System.nanoTime();
    long deadline = started + wait.toNanos();
    boolean entered = false;
    try {
      while (true) {
        long epoch = w.epoch();
        // After the epoch, as in receiveLater: a deletion from here on wakes the await below.
        queues.require(queue);
        if (w.dropped()) {
          // Deleted and made again since this receive took its list: see ParkedReceive.park.
          return waited(wait, started, List.of());
        }
        if (stopping && !wait.isZero()) {
          // Read after the epoch: a stop after this check moves the epoch, so no await misses it.
          throw new BrokerException.Unavailable(STOPPING);
        }
        if (w.settingsGeneration() != generation) {
          // As a parked long-poll (ParkedReceive): the settings or tokens it was authorised and
          // leased by changed while it waited; the caller asks again under the new ones.
          return waited(wait, started, List.of());
        }
        Instant now = clock.instant();
        List<Delivery> got = claimAt(queue, max, lease, now);
        long left = deadline - System.nanoTime();
        if (!got.isEmpty() || left <= 0) {
          return waited(wait, started, got);
        }
        if (!entered) {
          waiters.enter();
          entered = true;
        }
        // Every park, not only the first: a delayed message made while this consumer was out of
        // the list (woken, or taken for a hand-over that came back empty) found no one waiting.
        scheduleWakeForDelayed(queue, now);
        List<Delivery> handed = w.await(epoch, max, lease, left);
        if (handed != null && !handed.isEmpty()) {
          if (w.settingsGeneration() != generation) {
            // Handed over just as the settings changed: not under the old ones.
            releaseQuietly(queue, handed);
            return waited(wait, started, List.of());
          }
          return waited(wait, started, handed);
        }
        if (Thread.currentThread().isInterrupted()) {
          // Its consumer left; it may have been woken for messages it will not take now, so the
          // wake goes to another waiter (a spare one, if it was not: that one claims and parks).
          w.wake(max);
          return List.of();
        }
      }
    } finally {
      if (entered) {
        waiters.leave();
      }
    }
  }

  /** As {@link Broker#receiveLater(String, int, Duration, Duration)}. */
  CompletableFuture<List<Delivery>> receiveLater(
      String queue, int max, Duration wait, Duration visibility) {
    return receiveLater(queue, max, wait, visibility, settingsMark(queue));
  }

  /** As {@link Broker#receiveLater(String, int, Duration, Duration, long)}. */
  CompletableFuture<List<Delivery>> receiveLater(
      String queue, int max, Duration wait, Duration visibility, long mark) {
    checkWait(wait);
    QueueWaiters w = waiters.of(queue);
    // Read before the queue is looked up: a deletion after the lookup moves it, so a park on the
    // epoch read here is woken by that deletion, not left waiting on a queue that is gone.
    long epoch = w.epoch();
    Duration lease = checkReceive(queue, max, visibility);
    long started = System.nanoTime();
    if (stopping && !wait.isZero()) {
      // The server stops: the wait ends before it began, with nothing, and claims nothing.
      return CompletableFuture.completedFuture(waited(wait, started, List.of()));
    }
    Instant now = clock.instant();
    CompletableFuture<List<Delivery>> result = new CompletableFuture<>();
    ParkedReceive parked =
        wait.isZero()
            ? null
            : new ParkedReceive(this, w, timers, queue, max, lease, wait, started, mark, result);
    if (parked != null && knownEmpty(queue) && parkedAtOnce(queue, parked, epoch)) {
      return result;
    }
    claimAtAsync(queue, max, lease, now).whenComplete(
        (got, failure) -> {
          if (failure != null) {
            result.completeExceptionally(unwrap(failure));
          } else if (!got.isEmpty() || parked == null) {
            if (!result.complete(waited(wait, started, got))) {
              releaseQuietly(queue, got);
            }
          } else if (!result.isDone()) {
            // Parking looks up when delayed messages come due, a read: not on the store's thread.
            Thread.ofVirtual().name("wharf-receive").start(() -> park(queue, parked, epoch));
          }
        });
    return result;
  }

  /**
   * Parks a receive on a queue the store knows holds nothing, ready or delayed: no claim, no read
   * for a wake, no thread. A publish committed after the epoch was read wakes it (the wake
   * follows that publish's fsync, and the counters its commit). Returns false, having done
   * nothing, when the queue stopped being empty meanwhile.
   */
  private boolean parkedAtOnce(String queue, ParkedReceive parked, long epoch) {
    waiters.enter();
    if (!knownEmpty(queue)) {
      waiters.leave();
      return false;
    }
    parked.park(epoch);
    return true;
  }

  /** Parks a receive whose claim found nothing, with a wake for the next delayed message. */
  private void park(String queue, ParkedReceive parked, long epoch) {
    try {
      waiters.enter();
    } catch (RuntimeException e) {
      parked.fail(e);
      return;
    }
    scheduleWakeForDelayed(queue, clock.instant());
    parked.park(epoch);
  }

  /** Checks a receive's arguments; returns the lease it asks for. */
  private void checkWait(Duration wait) {
    checkRange("wait", wait, Duration.ZERO, options.maxWait());
  }

  private Duration checkReceive(String queue, int max, Duration visibility) {
    QueueSettings s = queues.require(queue);
    if (max < 1 || max > BrokerOptions.MAX_RECEIVE_BATCH) {
      throw new BrokerException.Invalid(
          "max must be between 1 and " + BrokerOptions.MAX_RECEIVE_BATCH + ", got " + max);
    }
    Duration lease = visibility != null ? visibility : s.visibilityTimeout();
    checkRange("visibility_timeout", lease, Duration.ofSeconds(1), s.maxVisibilityTimeout());
    return lease;
  }

  /** One claim of up to {@code max} messages, leased from {@code now} for {@code lease}. */
  List<Delivery> claimAt(String queue, int max, Duration lease, Instant now) {
    return await(claimAtAsync(queue, max, lease, now));
  }

  CompletableFuture<List<Delivery>> claimAtAsync(
      String queue, int max, Duration lease, Instant now) {
    ClaimRequest claim =
        new ClaimRequest(queue, max, now, now.plus(lease), options.maxReceiveBytes());
    return guarded(() -> store.messagesClaimAsync(claim))
        .thenApply(got -> {
          passOnWakeIfCutByBytes(queue, max, got);
          return got;
        });
  }

  /**
   * A claim that stopped short of its count where one more message like its largest would not
   * have fit may have left messages behind: the wake that sent it counted on it taking them all,
   * so one more parked consumer is woken to take what is left (it parks again if nothing is).
   */
  private void passOnWakeIfCutByBytes(String queue, int max, List<Delivery> got) {
    if (got.isEmpty() || got.size() >= max || !waiters.hasWaiters(queue)) {
      return;
    }
    long bytes = 0;
    long largest = 0;
    for (Delivery d : got) {
      long size = ClaimRequest.size(d.message());
      bytes += size;
      largest = Math.max(largest, size);
    }
    if (bytes + largest > options.maxReceiveBytes()) {
      waiters.wake(queue, 1);
    }
  }

  /** Whether the store knows the queue holds nothing ready; a store that fails knows nothing. */
  boolean knownEmpty(String queue) {
    return wakes.knownEmpty(queue);
  }

  /** For {@link ParkedReceive}: a wake may have come from the queue's deletion. */
  void requireQueue(String queue) {
    queues.require(queue);
  }

  /** For {@link ParkedReceive}: gives back a parking slot. */
  void leftWaiting() {
    waiters.leave();
  }

  /** As {@link Broker#releaseQuietly}. */
  void releaseQuietly(String queue, List<Delivery> undelivered) {
    if (undelivered.isEmpty()) {
      return;
    }
    CompletableFuture<?> released;
    try {
      released =
          settlements.releaseAsync(queue, undelivered.stream().map(Delivery::leaseId).toList());
    } catch (RuntimeException e) {
      released = CompletableFuture.failedFuture(e);
    }
    released.whenComplete(
        (done, failure) -> {
          if (failure != null) {
            LOG.log(Level.WARNING, "could not release leases; they will expire", unwrap(failure));
          }
        });
  }

  /** Records how long a receive that could wait took to be answered. */
  List<Delivery> waited(Duration wait, long startedNanos, List<Delivery> got) {
    if (!wait.isZero()) {
      metrics.receiveWaited(Duration.ofNanos(System.nanoTime() - startedNanos));
    }
    return got;
  }

  /** For {@link ParkedReceive}: the broker's clock. */
  Instant now() {
    return clock.instant();
  }

  /** Schedules a wake for the queue's next delayed message, for a consumer about to park. */
  void scheduleWakeForDelayed(String queue, Instant now) {
    wakes.scheduleWakeForDelayed(queue, now);
  }
}
