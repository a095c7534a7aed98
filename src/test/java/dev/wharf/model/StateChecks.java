package dev.wharf.model;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.core.QueueStats;
import dev.wharf.store.Message;
import dev.wharf.store.QueueCounts;
import java.time.Instant;
import java.util.List;

/**
 * Reads of the broker's state compared with the model's: one message by id, a whole queue in
 * publish order, and every queue's stats. Reads change nothing, so a run makes them as often as
 * it likes without moving a seed's choices.
 */
final class StateChecks {
  private final QueueModel model;
  private final Trace trace;

  StateChecks(QueueModel model, Trace trace) {
    this.model = model;
    this.trace = trace;
  }

  void message(Broker broker, ModelMessage m) {
    try {
      trace.expect(m.view(), ModelMessage.view(broker.message(m.queue, m.id)), "message");
    } catch (BrokerException.MessageNotFound e) {
      throw trace.discrepancy("message " + m.id + " not found in " + m.queue + "; model: " + m);
    }
  }

  /** A browse of every state in one page: the queue's messages in publish order, whole. */
  void queue(Broker broker, String queue) {
    List<ModelMessage.View> expected = model.messages().stream()
        .filter(m -> m.queue.equals(queue))
        .sorted((x, y) -> Long.compare(x.seq, y.seq))
        .map(ModelMessage::view)
        .toList();
    List<Message> got = broker.browse(queue, null, null, 0, 1000);
    trace.expect(expected, got.stream().map(ModelMessage::view).toList(),
        "browse(\"" + queue + "\")");
  }

  /** Depths by state, the DLQ's depth and how long the next message to go out has waited. */
  void stats(Broker broker, long now) {
    for (String q : model.queues().names()) {
      QueueStats stats = broker.stats(q);
      QueueCounts c = stats.counts();
      trace.expect(model.depths(q, now),
          new QueueModel.Depths(c.ready(), c.delayed(), c.leased(), c.expired()),
          "stats(\"" + q + "\") depths");
      trace.expect((long) model.deadOf(q).size(), stats.dead(), "stats(\"" + q + "\").dead");
      Long since = model.readySince(q, now);
      trace.expect(since == null ? null : Instant.ofEpochMilli(since), c.readySince(),
          "stats(\"" + q + "\") ready since (oldest_ready_age_ms = now minus it)");
    }
  }
}
