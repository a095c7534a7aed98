package dev.wharf.core;

import static dev.wharf.core.ArgumentRanges.checkLimit;
import static dev.wharf.core.StoreCalls.guard;

import dev.wharf.core.BrokerMetrics.Event;
import dev.wharf.store.BrowseRequest;
import dev.wharf.store.Message;
import dev.wharf.store.MessageIds;
import dev.wharf.store.MessageState;
import dev.wharf.store.QueueCounts;
import dev.wharf.store.RedriveRequest;
import dev.wharf.store.Redriven;
import dev.wharf.store.Store;
import java.time.InstantSource;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An operator's view and repair of a queue's messages, outside the consumers' leases: counting,
 * browsing, reading and deleting one message, moving dead letters back, purging.
 */
final class MessageAdmin {
  private final Store store;
  private final InstantSource clock;
  private final QueueRegistry queues;
  private final BrokerMetrics metrics;
  private final DelayedWakes wakes;

  MessageAdmin(
      Store store,
      InstantSource clock,
      QueueRegistry queues,
      BrokerMetrics metrics,
      DelayedWakes wakes) {
    this.store = store;
    this.clock = clock;
    this.queues = queues;
    this.metrics = metrics;
    this.wakes = wakes;
  }

  QueueStats stats(String queue) {
    QueueSettings s = queues.require(queue);
    QueueCounts counts = guard(() -> store.queueCounts(queue, clock.instant()));
    long dead =
        s.deadLetterQueue() == null ? 0 : guard(() -> store.deadCount(s.deadLetterQueue(), queue));
    return new QueueStats(
        counts,
        dead,
        metrics.total(queue, Event.PUBLISHED),
        metrics.total(queue, Event.ACKED),
        metrics.total(queue, Event.NACKED),
        metrics.total(queue, Event.DEAD),
        metrics.total(queue, Event.EXPIRED),
        metrics.total(queue, Event.DROPPED));
  }

  List<Message> browse(
      String queue, MessageState state, Boolean delayed, long after, int limit) {
    queues.require(queue);
    checkLimit(limit);
    return guard(() -> store.messagesBrowse(
        new BrowseRequest(queue, state, delayed, null, clock.instant(), after, limit)));
  }

  /** As {@link Broker#deadLetters}. */
  List<Message> deadLetters(String queue, long after, int limit) {
    QueueSettings s = queues.require(queue);
    checkLimit(limit);
    if (s.deadLetterQueue() == null) {
      return List.of();
    }
    return guard(() -> store.messagesBrowse(
        new BrowseRequest(s.deadLetterQueue(), null, null, queue, clock.instant(), after, limit)));
  }

  Message message(String queue, String id) {
    queues.require(queue);
    Optional<Message> m =
        MessageIds.wellFormed(id) ? guard(() -> store.messagesGet(queue, id)) : Optional.empty();
    return m.orElseThrow(() -> new BrokerException.MessageNotFound(queue, id));
  }

  void deleteMessage(String queue, String id) {
    queues.require(queue);
    if (!MessageIds.wellFormed(id) || !guard(() -> store.messagesDelete(queue, id))) {
      throw new BrokerException.MessageNotFound(queue, id);
    }
  }

  /** As {@link Broker#redrive}. */
  Redriven redrive(String queue, List<String> ids) {
    QueueSettings s = queues.require(queue);
    if (ids != null && (ids.isEmpty() || ids.size() > 1000)) {
      throw new BrokerException.Invalid("ids must hold 1 to 1000 message ids");
    }
    // A set of messages: an id given twice is one message, moved and counted once.
    List<String> distinct = ids == null ? null : List.copyOf(new LinkedHashSet<>(ids));
    // Text of no id's shape names no message: skipped without asking the store.
    List<String> named =
        distinct == null ? null : distinct.stream().filter(MessageIds::wellFormed).toList();
    if (s.deadLetterQueue() == null || (named != null && named.isEmpty())) {
      return new Redriven(0, distinct == null ? List.of() : distinct);
    }
    int total = 0;
    while (true) {
      Redriven r = guard(() -> store.messagesRedrive(
          new RedriveRequest(s.deadLetterQueue(), queue, named, clock.instant(), 1000)));
      total += r.moved();
      wakes.madeVisible(queue, r.moved(), null);
      if (named != null && named.size() < distinct.size()) {
        Set<String> skipped = Set.copyOf(r.skipped());
        return new Redriven(total, distinct.stream()
            .filter(id -> !MessageIds.wellFormed(id) || skipped.contains(id)).toList());
      }
      if (r.moved() < 1000 || ids != null) {
        return new Redriven(total, r.skipped());
      }
    }
  }

  long purge(String queue) {
    queues.require(queue);
    return guard(() -> store.messagesPurge(queue));
  }
}
