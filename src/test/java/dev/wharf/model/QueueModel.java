package dev.wharf.model;

import dev.wharf.core.Publish;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.MessageState;
import dev.wharf.store.PublishResult;
import dev.wharf.store.Redriven;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * DESIGN §3's state machine, and the details docs/api.md adds to it, over plain maps: what Wharf
 * should answer, for the test to compare with what it does answer. No storage, no threads, no
 * clock of its own: every time is epoch milliseconds handed in by the caller.
 */
final class QueueModel {
  static final String MAX_ATTEMPTS_REASON = "max_attempts_exceeded";
  /** The reapers delete long-expired messages at most once per this much clock time. */
  private static final long SLOW_PASS_MS = 10_000;

  /** A queue's depth by state, as stats gives it. */
  record Depths(long ready, long delayed, long leased, long expired) {}

  private record Settled(Outcome outcome, long at) {}

  /** An idempotency key's first message, and when the key stops counting. */
  private record FirstPublish(String id, long until) {}

  /** The windows the broker is given: what the model expects of them is in docs/api.md. */
  record Windows(long idempotencyMs, long settleMemoryMs, long expiredRetentionMs) {}

  private final ModelQueues queues;
  private final Windows windows;

  /** In publish order, which iteration keeps, so that the model's choices are reproducible. */
  private final Map<String, ModelMessage> messages = new LinkedHashMap<>();
  private final Map<String, FirstPublish> idempotencyKeys = new HashMap<>();
  private final Map<String, ModelMessage> byLease = new LinkedHashMap<>();
  private final Map<String, Settled> settled = new HashMap<>();
  private final Set<String> idsMade = new HashSet<>();
  private long nextSeq = 1;
  /** When the reapers last deleted long-expired messages; a new broker has not yet. */
  private long lastSlowPass;

  QueueModel(ModelQueues queues, Windows windows) {
    this.queues = queues;
    this.windows = windows;
  }

  ModelQueues queues() {
    return queues;
  }

  /**
   * One entry of a publish. {@code idIfNew} is the id Wharf gave, taken as the new message's when
   * the model makes one; the caller checks it was not given before ({@link #madeId}).
   */
  PublishResult publish(String queue, Publish p, String idIfNew, long now) {
    String idempotency = p.idempotencyKey() == null ? null : queue + '\0' + p.idempotencyKey();
    FirstPublish first = idempotency == null ? null : idempotencyKeys.get(idempotency);
    // A key counts while its window lasts, however long its message lived.
    if (first != null && first.until > now) {
      return new PublishResult(first.id, true, false);
    }
    MessageContent content = MessageContent.of(p);
    ModelMessage same = p.key() == null ? null : readyWithKey(queue, p.key());
    PublishResult result;
    if (same != null) {
      // In place: its times, attempt, TTL and place in line stay as they were.
      same.content = content;
      result = new PublishResult(same.id, false, true);
    } else {
      QueueSpec spec = queues.spec(queue);
      ModelMessage m = new ModelMessage(idIfNew, queue, nextSeq++, now, content);
      m.visibleAt = now + (p.delay() != null ? p.delay().toMillis() : spec.delayMs());
      Long ttl = p.ttl() == null ? spec.ttlMs() : p.ttl().isZero() ? null : p.ttl().toMillis();
      m.expiresAt = ttl == null ? null : now + ttl;
      m.key = p.key();
      if (m.key != null) {
        inQueue(queue).stream()
            .filter(o -> o.state == MessageState.LEASED && m.key.equals(o.key))
            .forEach(o -> o.superseded = true);
      }
      messages.put(m.id, m);
      idsMade.add(m.id);
      result = new PublishResult(m.id, false, false);
    }
    if (idempotency != null) {
      idempotencyKeys.put(idempotency,
          new FirstPublish(result.id(), now + windows.idempotencyMs()));
    }
    return result;
  }

  /**
   * Why a publish is refused as a whole, or null: a message whose delay, its own or the queue's,
   * is as long as its TTL, its own or the queue's, would expire before anyone could see it.
   */
  String publishRefused(String queue, List<Publish> batch) {
    QueueSpec spec = queues.spec(queue);
    for (int i = 0; i < batch.size(); i++) {
      Publish p = batch.get(i);
      long delay = p.delay() != null ? p.delay().toMillis() : spec.delayMs();
      Long ttl = p.ttl() == null ? spec.ttlMs() : p.ttl().isZero() ? null : p.ttl().toMillis();
      if (ttl != null && delay >= ttl) {
        return "item " + i + ": delay " + delay + "ms, ttl " + ttl + "ms";
      }
    }
    return null;
  }

  boolean madeId(String id) {
    return idsMade.contains(id);
  }

  /** The messages a receive of {@code max} takes now, in delivery order. */
  List<ModelMessage> due(String queue, int max, long now) {
    return inQueue(queue).stream()
        .filter(m -> m.state == MessageState.READY && m.visibleAt <= now && !pastTtl(m, now))
        .sorted(Comparator.comparingLong((ModelMessage m) -> m.visibleAt)
            .thenComparingLong(m -> m.seq))
        .limit(max)
        .toList();
  }

  void lease(ModelMessage m, String leaseId, long until) {
    m.state = MessageState.LEASED;
    m.attempt++;
    m.leaseId = leaseId;
    m.leaseUntil = until;
    byLease.put(leaseId, m);
  }

  /** One lease's settle on {@code queue}'s route; {@code argMs} is the delay or the extension. */
  LeaseOutcome settle(LeaseAction action, String queue, String leaseId, long argMs, String reason,
      long now) {
    ModelMessage m = byLease.get(leaseId);
    if (m == null || !m.queue.equals(queue)) {
      Settled before = settled.get(queue + '\0' + leaseId);
      boolean recalled = before != null && now - before.at <= windows.settleMemoryMs()
          && action.repeats(before.outcome);
      return outcome(leaseId, recalled ? before.outcome : Outcome.LEASE_NOT_FOUND);
    }
    if (m.leaseUntil <= now) {
      return outcome(leaseId, Outcome.LEASE_EXPIRED);
    }
    QueueSpec spec = queues.spec(m.queue);
    boolean superseded = false;
    Outcome o;
    switch (action) {
      case ACK -> {
        remove(m);
        o = Outcome.ACKED;
      }
      case NACK -> {
        if (spec.lastAttempt(m.attempt)) {
          o = toDeadLetters(m, MAX_ATTEMPTS_REASON, now);
        } else {
          superseded = backToReady(m, now + argMs);
          o = Outcome.RETRIED;
        }
      }
      case DEAD -> o = toDeadLetters(m, reason, now);
      case DEFER -> {
        m.attempt = Math.max(0, m.attempt - 1);
        superseded = backToReady(m, now + argMs);
        o = Outcome.DEFERRED;
      }
      case EXTEND -> {
        m.leaseUntil = Math.max(m.leaseUntil, now + argMs);
        return new LeaseOutcome(leaseId, Outcome.EXTENDED, Instant.ofEpochMilli(m.leaseUntil),
            false);
      }
      default -> throw new IllegalArgumentException(action.name());
    }
    settled.put(queue + '\0' + leaseId, new Settled(o, now));
    return new LeaseOutcome(leaseId, o, null, superseded);
  }

  /**
   * A reaper pass: ended leases first, in the order they ended, then TTLs. A TTL that ran out
   * before the lease ended wins, even on the last attempt.
   */
  void reap(long now) {
    List<ModelMessage> ended = messages.values().stream()
        .filter(m -> m.state == MessageState.LEASED && m.leaseUntil <= now)
        .filter(m -> m.expiresAt == null || m.expiresAt > m.leaseUntil)
        .sorted(Comparator.comparingLong(m -> m.leaseUntil))
        .toList();
    for (ModelMessage m : ended) {
      if (queues.spec(m.queue).lastAttempt(m.attempt)) {
        toDeadLetters(m, MAX_ATTEMPTS_REASON, now);
      } else {
        backToReady(m, now);
      }
    }
    for (ModelMessage m : messages.values()) {
      if (m.state != MessageState.EXPIRED && pastTtl(m, now)) {
        endLease(m);
        m.state = MessageState.EXPIRED;
      }
    }
    if (now - lastSlowPass >= SLOW_PASS_MS || now < lastSlowPass) {
      lastSlowPass = now;
      long before = now - windows.expiredRetentionMs();
      List.copyOf(messages.values()).stream()
          .filter(m -> m.state == MessageState.EXPIRED && m.expiresAt <= before)
          .forEach(this::remove);
    }
  }

  boolean ttlDue(long now) {
    return messages.values().stream().anyMatch(m -> m.state != MessageState.EXPIRED
        && pastTtl(m, now));
  }

  /** A redrive of {@code ids} (null: all) from {@code queue}'s DLQ. */
  Redriven redrive(String queue, List<String> ids, long now) {
    String dlq = queues.spec(queue).deadLetterQueue();
    Collection<String> asked = ids == null ? deadOf(queue) : new LinkedHashSet<>(ids);
    List<String> skipped = new ArrayList<>();
    int moved = 0;
    for (String id : asked) {
      ModelMessage m = messages.get(id);
      if (dlq == null || m == null || !m.queue.equals(dlq) || !queue.equals(m.originalQueue)
          || m.state != MessageState.READY) {
        skipped.add(id);
        continue;
      }
      moved++;
      m.queue = queue;
      m.originalQueue = null;
      m.deadReason = null;
      m.diedAt = null;
      m.attempt = 0;
      m.visibleAt = now;
    }
    // Only a redrive that names ids reports what it skipped.
    return new Redriven(moved, ids == null ? List.of() : skipped);
  }

  long purge(String queue) {
    List<ModelMessage> in = inQueue(queue);
    in.forEach(this::remove);
    return in.size();
  }

  boolean delete(String queue, String id) {
    ModelMessage m = messages.get(id);
    if (m == null || !m.queue.equals(queue)) {
      return false;
    }
    remove(m);
    return true;
  }

  /** A clean restart keeps every message and lease; only the memory of settles is lost. */
  void restarted() {
    settled.clear();
    lastSlowPass = 0;
  }

  /**
   * When the message a receive would take next became visible (docs/api.md's
   * oldest_ready_age_ms counts from it), or null when none is visible.
   */
  Long readySince(String queue, long now) {
    List<ModelMessage> next = due(queue, 1, now);
    return next.isEmpty() ? null : next.get(0).visibleAt;
  }

  Depths depths(String queue, long now) {
    long ready = 0;
    long delayed = 0;
    long leased = 0;
    long expired = 0;
    for (ModelMessage m : inQueue(queue)) {
      switch (m.state) {
        case READY -> {
          if (m.visibleAt <= now) {
            ready++;
          } else {
            delayed++;
          }
        }
        case LEASED -> leased++;
        case EXPIRED -> expired++;
      }
    }
    return new Depths(ready, delayed, leased, expired);
  }

  /** The ids of the dead messages that came from {@code queue}, in any state. */
  List<String> deadOf(String queue) {
    String dlq = queues.spec(queue).deadLetterQueue();
    return messages.values().stream()
        .filter(m -> m.queue.equals(dlq) && queue.equals(m.originalQueue))
        .map(m -> m.id)
        .toList();
  }

  List<ModelMessage> messages() {
    return List.copyOf(messages.values());
  }

  ModelMessage message(String id) {
    return messages.get(id);
  }

  /**
   * Lease ids that still hold a message, in the order granted: lease ids carry random bits, so
   * only an order that ignores them keeps a seed's picks the same from run to run.
   */
  List<String> currentLeases() {
    return List.copyOf(byLease.keySet());
  }

  private ModelMessage readyWithKey(String queue, String key) {
    List<ModelMessage> found = inQueue(queue).stream()
        .filter(m -> m.state == MessageState.READY && key.equals(m.key))
        .toList();
    if (found.size() > 1) {
      throw new IllegalStateException("the model holds two ready messages with key " + key);
    }
    return found.isEmpty() ? null : found.get(0);
  }

  /** Ends a lease other than by ack or death; true when the message is deleted instead. */
  private boolean backToReady(ModelMessage m, long visibleAt) {
    if (m.superseded) {
      remove(m);
      return true;
    }
    endLease(m);
    m.state = MessageState.READY;
    m.visibleAt = visibleAt;
    return false;
  }

  private Outcome toDeadLetters(ModelMessage m, String reason, long now) {
    endLease(m);
    String dlq = queues.spec(m.queue).deadLetterQueue();
    if (dlq == null) {
      remove(m);
      return Outcome.DROPPED;
    }
    // A dead message loses its TTL and its key, and its superseding no longer matters.
    m.originalQueue = m.queue;
    m.queue = dlq;
    m.deadReason = reason;
    m.diedAt = now;
    m.state = MessageState.READY;
    m.visibleAt = now;
    m.attempt = 0;
    m.expiresAt = null;
    m.key = null;
    m.superseded = false;
    return Outcome.DEAD;
  }

  private void endLease(ModelMessage m) {
    if (m.leaseId != null) {
      byLease.remove(m.leaseId);
      m.leaseId = null;
    }
  }

  private void remove(ModelMessage m) {
    endLease(m);
    messages.remove(m.id);
  }

  private List<ModelMessage> inQueue(String queue) {
    return messages.values().stream().filter(m -> m.queue.equals(queue)).toList();
  }

  private static boolean pastTtl(ModelMessage m, long now) {
    return m.expiresAt != null && m.expiresAt <= now;
  }

  private static LeaseOutcome outcome(String leaseId, Outcome o) {
    return new LeaseOutcome(leaseId, o, null, false);
  }
}
