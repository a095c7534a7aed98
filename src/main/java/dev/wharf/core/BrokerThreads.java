package dev.wharf.core;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The broker's own threads: the timers' (long-poll timeouts, delayed messages' wakes, the retry
 * of config entries waiting for room) and the reapers'. The reapers' passes wait on storage, which
 * may stall for as long as the store lets it: on the timers' thread they would hold up every
 * long-poll's timeout with them.
 */
final class BrokerThreads {
  private static final Logger LOG = Logger.getLogger(BrokerThreads.class.getName());
  /** How long a close waits for a reaper pass under way to end. */
  private static final long CLOSE_WAIT_SECONDS = 5;

  private final ScheduledThreadPoolExecutor timers;
  private final ScheduledExecutorService reaping;

  BrokerThreads() {
    this.timers =
        new ScheduledThreadPoolExecutor(
            1, r -> Thread.ofPlatform().daemon().name("wharf-timers").unstarted(r));
    // Every parked receive schedules its timeout; most are cancelled by a message first.
    timers.setRemoveOnCancelPolicy(true);
    this.reaping =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("wharf-reapers").unstarted(r));
  }

  /** The timers' thread: long-poll timeouts, delayed messages' wakes, retries. */
  ScheduledExecutorService timers() {
    return timers;
  }

  /** The reapers' own thread. */
  ScheduledExecutorService reaping() {
    return reaping;
  }

  /** Tasks waiting on the timers' thread (for tests: what parks and delays leave behind). */
  int scheduledTasks() {
    return timers.getQueue().size();
  }

  /** Stops both threads, waiting a while for what runs on them to end. */
  void close() {
    timers.shutdownNow();
    reaping.shutdownNow();
    // A reaper pass under way (its store calls do not heed the interrupt) ends first: the caller
    // closes the store next, and the pass would fail against it and log a storage failure.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_WAIT_SECONDS);
    try {
      if (!reaping.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)
          || !timers.awaitTermination(
              Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        LOG.warning("a reaper pass or a timer's task was still running " + CLOSE_WAIT_SECONDS
            + " s into the stop");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
