package dev.wharf.core;

import dev.wharf.core.BrokerMetrics.Event;
import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.QueueGone;
import dev.wharf.store.SettleKind;
import dev.wharf.store.SettleRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Ending or changing leases: ack, nack, dead, defer, extend, release. Each takes the current
 * lease ids of one queue and answers one outcome per distinct lease, in request order; stale or
 * unknown leases come back as conflicts unless the same lease was settled the same way moments
 * ago.
 */
public final class Settlements {
  private final Broker broker;
  private final RecentSettlements recent;

  Settlements(Broker broker) {
    this.broker = broker;
    this.recent = new RecentSettlements(broker.options().repeatWindow().toMillis());
  }

  /**
   * @param permissive accept a stale lease while its message still exists (Cloudflare semantics)
   */
  public List<LeaseOutcome> ack(String queue, List<String> leaseIds, boolean permissive) {
    return StoreCalls.await(ackAsync(queue, leaseIds, permissive));
  }

  public List<LeaseOutcome> nack(String queue, List<String> leaseIds, Duration delay) {
    return StoreCalls.await(nackAsync(queue, leaseIds, delay, null));
  }

  public List<LeaseOutcome> dead(String queue, List<String> leaseIds, String reason) {
    return StoreCalls.await(deadAsync(queue, leaseIds, reason));
  }

  public List<LeaseOutcome> defer(String queue, List<String> leaseIds, Duration delay) {
    return StoreCalls.await(deferAsync(queue, leaseIds, delay));
  }

  public List<LeaseOutcome> extend(String queue, List<String> leaseIds, Duration by) {
    return StoreCalls.await(extendAsync(queue, leaseIds, by));
  }

  public List<LeaseOutcome> release(String queue, List<String> leaseIds) {
    return StoreCalls.await(releaseAsync(queue, leaseIds));
  }

  // Each below checks its arguments on the caller's thread (throwing what is wrong) and completes
  // its future once the change is committed (on PostgreSQL that is on disk; on SQLite the fsync
  // follows), on a thread of the store's: chain nothing that blocks.

  /**
   * @param permissive accept a stale lease while its message still exists (Cloudflare semantics)
   */
  public CompletableFuture<List<LeaseOutcome>> ackAsync(
      String queue, List<String> leaseIds, boolean permissive) {
    return run(queue, SettleKind.ACK, leaseIds, null, null, null, permissive);
  }

  /**
   * Back to the queue after {@code delay}; to the DLQ when the attempts are used up, with
   * {@code reason} as its dead reason when given (else {@code max_attempts_exceeded}).
   */
  public CompletableFuture<List<LeaseOutcome>> nackAsync(
      String queue, List<String> leaseIds, Duration delay, String reason) {
    ArgumentRanges.checkRange("delay", delay, Duration.ZERO, Duration.ofDays(30));
    return run(queue, SettleKind.RETRY, leaseIds, delay, null, reason(reason), false);
  }

  /** Straight to the DLQ with a reason. */
  public CompletableFuture<List<LeaseOutcome>> deadAsync(
      String queue, List<String> leaseIds, String reason) {
    return run(queue, SettleKind.DEAD, leaseIds, null, null, reason(reason), false);
  }

  /** A dead reason checked; an empty one is none, so the message gets the default reason. */
  private static String reason(String reason) {
    TextFields.check("reason", reason, 0, 1024);
    return reason == null || reason.isEmpty() ? null : reason;
  }

  /** Back to the queue after {@code delay}, the attempt not counted. */
  public CompletableFuture<List<LeaseOutcome>> deferAsync(
      String queue, List<String> leaseIds, Duration delay) {
    ArgumentRanges.checkRange("delay", delay, Duration.ZERO, Duration.ofDays(30));
    return run(queue, SettleKind.DEFER, leaseIds, delay, null, null, false);
  }

  /** The lease ends {@code by} from now, capped by the queue's max visibility timeout. */
  public CompletableFuture<List<LeaseOutcome>> extendAsync(
      String queue, List<String> leaseIds, Duration by) {
    QueueSettings s = broker.queues().require(queue);
    ArgumentRanges.checkRange("by", by, Duration.ofSeconds(1), s.maxVisibilityTimeout());
    return run(queue, SettleKind.EXTEND, leaseIds, null, by, null, false);
  }

  /** The delivery never reached its consumer: ready again at once, the attempt not counted. */
  public CompletableFuture<List<LeaseOutcome>> releaseAsync(String queue, List<String> leaseIds) {
    return run(queue, SettleKind.RELEASE, leaseIds, Duration.ZERO, null, null, false);
  }

  private CompletableFuture<List<LeaseOutcome>> run(
      String queue,
      SettleKind kind,
      List<String> leaseIds,
      Duration delay,
      Duration extendBy,
      String reason,
      boolean permissive) {
    broker.queues().require(queue);
    List<String> ids = distinct(leaseIds);
    Instant now = broker.clock().instant();
    DeadLetterPolicy policy = broker.queues().policy(queue);
    SettleRequest req =
        new SettleRequest(
            queue,
            kind,
            ids,
            now,
            delay == null ? null : now.plus(delay),
            extendBy == null ? null : now.plus(extendBy),
            policy,
            reason,
            permissive);
    return StoreCalls.guarded(
            () ->
                broker.store().messagesSettleAsync(req).exceptionallyComposeAsync(failure -> {
                  // The store refused to move messages into a dead-letter queue deleted since
                  // the policy was read. The queue it serves still names it, so it is made again,
                  // as a dead move does when its DLQ is missing, and the same write tried once
                  // more (it wrote nothing). Off the store's thread, which may not wait for a
                  // write of its own.
                  if (StoreCalls.unwrap(failure) instanceof QueueGone gone
                      && gone.queue().equals(policy.deadLetterQueue())) {
                    broker.queues().restoreDeadLetterQueue(gone.queue());
                    return broker.store().messagesSettleAsync(req);
                  }
                  return CompletableFuture.failedFuture(failure);
                }, Thread::startVirtualThread))
        .thenApply(stored -> settled(queue, kind, delay, now, policy, stored));
  }

  private List<LeaseOutcome> settled(
      String queue,
      SettleKind kind,
      Duration delay,
      Instant now,
      DeadLetterPolicy policy,
      List<LeaseOutcome> stored) {
    long nowMs = now.toEpochMilli();
    List<LeaseOutcome> out = new ArrayList<>(stored.size());
    int visible = 0;
    int dead = 0;
    for (LeaseOutcome o : stored) {
      if (o.outcome().succeeded()) {
        if (kind != SettleKind.EXTEND) {
          recent.remember(queue, o.leaseId(), o.outcome(), nowMs);
        }
        if (o.superseded()) {
          // Deleted where it would have been ready again: replaced, as an upsert in place is,
          // and nothing became visible.
          broker.metrics().count(queue, Event.REPLACED, 1);
        } else {
          count(queue, o.outcome());
          if (o.outcome() == Outcome.RETRIED || o.outcome() == Outcome.DEFERRED
              || o.outcome() == Outcome.RELEASED) {
            visible++;
          } else if (o.outcome() == Outcome.DEAD) {
            dead++;
          }
        }
        out.add(o);
      } else {
        Outcome earlier = recent.recall(queue, o.leaseId(), nowMs);
        out.add(earlier != null && repeats(kind, earlier) ? LeaseOutcome.of(o.leaseId(), earlier)
            : o);
      }
    }
    if (delay != null && delay.isZero()) {
      broker.madeVisible(queue, visible, null);
    } else if (delay != null) {
      broker.madeVisible(queue, 0, now.plus(delay));
    }
    if (dead > 0 && policy.deadLetterQueue() != null) {
      broker.madeVisible(policy.deadLetterQueue(), dead, null);
    }
    return out;
  }

  /**
   * Whether a lease settled moments ago with {@code earlier} is settled again by a request of this
   * kind, one whose first answer the consumer lost: it then succeeds with that outcome again. A
   * settle of another kind is not a repeat but a consumer that lost track of its lease: an ack
   * after a nack must not tell it the message is gone, nor an extend after an ack that it still
   * holds the lease. Those are conflicts, as for any lease the message no longer has.
   */
  private static boolean repeats(SettleKind kind, Outcome earlier) {
    return switch (kind) {
      case ACK -> earlier == Outcome.ACKED;
      // A nack may have moved the message to the DLQ (attempts used up): that is its outcome.
      case RETRY ->
          earlier == Outcome.RETRIED || earlier == Outcome.DEAD || earlier == Outcome.DROPPED;
      case DEAD -> earlier == Outcome.DEAD || earlier == Outcome.DROPPED;
      case DEFER -> earlier == Outcome.DEFERRED;
      case RELEASE -> earlier == Outcome.RELEASED;
      case EXTEND -> false;
    };
  }

  private void count(String queue, Outcome o) {
    BrokerMetrics m = broker.metrics();
    switch (o) {
      case ACKED -> m.count(queue, Event.ACKED, 1);
      case RETRIED -> m.count(queue, Event.NACKED, 1);
      case DEFERRED -> m.count(queue, Event.DEFERRED, 1);
      case DEAD -> m.count(queue, Event.DEAD, 1);
      case DROPPED -> m.count(queue, Event.DROPPED, 1);
      default -> {}
    }
  }

  private static List<String> distinct(List<String> leaseIds) {
    if (leaseIds == null || leaseIds.isEmpty()) {
      throw new BrokerException.Invalid("at least one lease id is required");
    }
    LinkedHashSet<String> set = new LinkedHashSet<>();
    for (String id : leaseIds) {
      if (id == null || id.isEmpty() || id.length() > 200) {
        throw new BrokerException.Invalid("lease ids must be 1 to 200 characters");
      }
      set.add(id);
    }
    if (set.size() > BrokerOptions.MAX_SETTLE_BATCH) {
      throw new BrokerException.Invalid(
          "at most " + BrokerOptions.MAX_SETTLE_BATCH + " lease ids per request, got " + set.size());
    }
    return new ArrayList<>(set);
  }
}
