package dev.wharf.core;

import static dev.wharf.core.ArgumentRanges.checkRange;
import static dev.wharf.core.StoreCalls.guarded;

import dev.wharf.core.BrokerMetrics.Event;
import dev.wharf.store.ClaimRequest;
import dev.wharf.store.Delivery;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.PublishedAndClaimed;
import dev.wharf.store.Store;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Publishing: checks each message of a batch against its queue, writes the batch, and hands
 * messages straight to consumers already parked on the queue in the same write; the rest are
 * woken, now or when delayed messages come due.
 */
final class Publishing {
  private final Store store;
  private final InstantSource clock;
  private final BrokerOptions options;
  private final QueueRegistry queues;
  private final Waiters waiters;
  private final BrokerMetrics metrics;
  private final DelayedWakes wakes;

  Publishing(
      Store store,
      InstantSource clock,
      BrokerOptions options,
      QueueRegistry queues,
      Waiters waiters,
      BrokerMetrics metrics,
      DelayedWakes wakes) {
    this.store = store;
    this.clock = clock;
    this.options = options;
    this.queues = queues;
    this.waiters = waiters;
    this.metrics = metrics;
    this.wakes = wakes;
  }

  /** As {@link Broker#publishAsync}. */
  CompletableFuture<List<PublishResult>> publishAsync(
      String queue, List<Publish> messages) {
    QueueSettings s = queues.require(queue);
    if (messages.isEmpty() || messages.size() > options.maxPublishBatch()) {
      throw new BrokerException.Invalid("a publish takes 1 to " + options.maxPublishBatch()
          + " messages, got " + messages.size());
    }
    Instant now = clock.instant();
    List<NewMessage> rows = new ArrayList<>(messages.size());
    int visibleNow = 0;
    Instant earliestLater = null;
    int item = 0;
    for (Publish p : messages) {
      Duration delay = p.delay() != null ? p.delay() : s.delay();
      Duration ttl = p.ttl() != null ? (p.ttl().isZero() ? null : p.ttl()) : s.ttl();
      try {
        checkRange("delay", delay, Duration.ZERO, Duration.ofDays(30));
        if (ttl != null) {
          checkRange("ttl", ttl, Duration.ofMillis(1), Duration.ofDays(365));
          if (delay.compareTo(ttl) >= 0) {
            // The time to live counts from the publish: it would expire unseen.
            throw new BrokerException.Invalid("delay (" + Durations.format(delay)
                + ") must be shorter than ttl (" + Durations.format(ttl)
                + "): the message would expire before it became visible");
          }
        }
        TextFields.check("idempotency_key", p.idempotencyKey(), 1, 256);
        TextFields.check("key", p.key(), 1, 256);
      } catch (BrokerException.Invalid e) {
        // In a batch, the caller needs to know which message to fix.
        throw e.ofItem(item);
      }
      item++;
      Instant visibleAt = now.plus(delay);
      if (delay.isZero()) {
        visibleNow++;
      } else if (earliestLater == null || visibleAt.isBefore(earliestLater)) {
        earliestLater = visibleAt;
      }
      rows.add(
          new NewMessage(
              p.contentType(),
              p.payload(),
              p.headers(),
              p.metadata(),
              visibleAt,
              ttl == null ? null : now.plus(ttl),
              p.idempotencyKey(),
              p.key()));
    }
    PublishBatch batch = new PublishBatch(queue, rows, now, now.plus(options.idempotencyWindow()));
    int visible = visibleNow;
    Instant later = earliestLater;
    List<QueueWaiters.Waiter> taken = waiters.take(queue, visibleNow);
    if (taken.isEmpty()) {
      return guarded(() -> store.messagesPublishAsync(batch))
          .thenApply(results -> published(queue, results, visible, 0, later));
    }
    return publishAndHandOver(batch, taken)
        .thenApply(
            out -> {
              int handed = 0;
              for (List<Delivery> d : out.claimed()) {
                handed += d.size();
              }
              return published(queue, out.published(), visible, handed, later);
            });
  }

  private List<PublishResult> published(
      String queue, List<PublishResult> results, int visibleNow, int handed, Instant later) {
    // A key's replacement adds no message: counted apart, published stays what the queue took in.
    long replaced = 0;
    long added = 0;
    for (PublishResult r : results) {
      if (r.replaced()) {
        replaced++;
      } else if (!r.duplicate()) {
        added++;
      }
    }
    metrics.count(queue, Event.PUBLISHED, added);
    metrics.count(queue, Event.REPLACED, replaced);
    wakes.madeVisible(queue, Math.max(0, visibleNow - handed), later);
    return results;
  }

  /**
   * Writes a publish together with leases for consumers already parked on its queue, and hands
   * each its deliveries: they get the messages at the publisher's own commit, without a wake-up
   * and a claim of their own.
   */
  private CompletableFuture<PublishedAndClaimed> publishAndHandOver(
      PublishBatch batch, List<QueueWaiters.Waiter> taken) {
    List<ClaimRequest> claims = new ArrayList<>(taken.size());
    for (QueueWaiters.Waiter w : taken) {
      claims.add(
          new ClaimRequest(
              batch.queue(),
              w.wants,
              batch.now(),
              batch.now().plus(w.lease),
              options.maxReceiveBytes()));
    }
    CompletableFuture<PublishedAndClaimed> out =
        guarded(() -> store.messagesPublishAndClaimAsync(batch, claims));
    // Every taken consumer waits for its hand-over, so each gets one whatever happened; after a
    // failure, an empty one sends it back to claiming and waiting on its own.
    return out.whenComplete(
        (done, failure) -> {
          for (int i = 0; i < taken.size(); i++) {
            taken.get(i).handOver(done == null ? List.of() : done.claimed().get(i));
          }
        });
  }
}
