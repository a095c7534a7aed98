package dev.wharf.core;

import dev.wharf.core.BrokerMetrics.Event;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.QueueGone;
import dev.wharf.store.ReapResult;
import dev.wharf.store.StorageFull;
import dev.wharf.store.StoreException;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Time-driven transitions: lease expiry (every 100 ms, so a lease ends at most that late), TTL
 * expiry, deletion of long-expired messages and of spent idempotency keys. Tests call
 * {@link #runOnce(Instant)} after moving the clock instead of sleeping.
 */
public final class Reapers {
  private static final Logger LOG = Logger.getLogger(Reapers.class.getName());
  private static final int BATCH = 1000;
  private final Broker broker;
  private long lastSlowPass;
  /** Passes failed in a row, and when a failure was last logged (System.nanoTime). */
  private int failedInARow;
  private long loggedAt;

  Reapers(Broker broker) {
    this.broker = broker;
  }

  void start(ScheduledExecutorService timers) {
    timers.scheduleWithFixedDelay(this::tick, 100, 100, TimeUnit.MILLISECONDS);
  }

  void tick() {
    try {
      runOnce(broker.clock().instant());
      if (failedInARow > 0) {
        LOG.info("reaper passes work again after " + failedInARow + " failed");
        failedInARow = 0;
      }
    } catch (RuntimeException e) {
      // Ten passes a second fail alike while storage is down: the first is logged in full, then
      // one line a minute, not megabytes of the same stack trace.
      long now = System.nanoTime();
      if (failedInARow++ == 0 && StorageFull.in(e)) {
        // The operator's matter, which a line says better than a trace of where it was noticed.
        LOG.warning("reaper pass failed: the disk is full; will retry every 100 ms ("
            + StoreException.firstLine(e.getMessage()) + ")");
        loggedAt = now;
      } else if (failedInARow == 1) {
        LOG.log(Level.WARNING, "reaper pass failed; will retry every 100 ms", e);
        loggedAt = now;
      } else if (now - loggedAt >= 60_000_000_000L) {
        LOG.warning("reaper passes still failing (" + failedInARow + " in a row): " + e);
        loggedAt = now;
      }
    }
  }

  /** Runs every reaper until nothing more is due at {@code now}. */
  public void runOnce(Instant now) {
    ReapResult r;
    do {
      r = expireLeases(now);
      account(r);
    } while (r.touched() >= BATCH);
    do {
      r = broker.store().messagesExpireTtl(now, BATCH);
      r.expired().forEach((q, n) -> broker.metrics().count(q, Event.EXPIRED, n));
    } while (r.touched() >= BATCH);
    long ms = now.toEpochMilli();
    if (ms - lastSlowPass >= 10_000 || ms < lastSlowPass) {
      lastSlowPass = ms;
      Instant before = now.minus(broker.options().expiredRetention());
      while (broker.store().messagesDeleteExpired(before, BATCH) >= BATCH) {}
      while (broker.store().idempotencyPrune(now, BATCH) >= BATCH) {}
    }
  }

  private ReapResult expireLeases(Instant now) {
    LeaseExpiryRequest request = new LeaseExpiryRequest(now, BATCH, broker.queues()::policy);
    try {
      return broker.store().leasesExpire(request);
    } catch (QueueGone gone) {
      // A dead-letter queue deleted after its policy was read: made again, as a dead move does
      // when its DLQ is missing, and the pass (which wrote nothing) run once more.
      broker.queues().restoreDeadLetterQueue(gone.queue());
      return broker.store().leasesExpire(request);
    }
  }

  private void account(ReapResult r) {
    r.madeVisible().forEach((q, n) -> broker.madeVisible(q, n, null));
    for (Map.Entry<String, Integer> e : r.dead().entrySet()) {
      broker.metrics().count(e.getKey(), Event.DEAD, e.getValue());
      String dlq = broker.queues().policy(e.getKey()).deadLetterQueue();
      if (dlq != null) {
        broker.madeVisible(dlq, e.getValue(), null);
      }
    }
    r.dropped().forEach((q, n) -> broker.metrics().count(q, Event.DROPPED, n));
    r.superseded().forEach((q, n) -> broker.metrics().count(q, Event.REPLACED, n));
  }
}
