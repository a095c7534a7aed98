package dev.wharf.model;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.BrokerException;
import dev.wharf.core.Publish;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.PublishResult;
import dev.wharf.store.QueueCounts;
import dev.wharf.store.Redriven;
import dev.wharf.store.Store;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One seed's run: random operations on a broker over a store, each applied to the {@link
 * QueueModel} too, and every answer and the queues' depths compared with the model's after each
 * step. The seed alone decides every choice, the clock moves only when an operation moves it, and
 * the reapers run only when an operation runs them, so a seed replays exactly.
 */
final class ModelRun implements AutoCloseable {
  private static final String DEAD_REASON = "dead by the model test";

  private final RandomInputs random;
  /** A new, unstarted store on the run's database, at the start and at each restart. */
  private final Supplier<Store> stores;
  private final MutableClock clock = MutableClock.atEpochDay();
  private final Trace trace;
  private final QueueModel model = new QueueModel();
  private final Set<Outcome> outcomesSeen;
  /** Every lease ever handed out: settles pick stale and repeated ones here. */
  private final List<String> leasesGiven = new ArrayList<>();
  /** The queue of each lease ever handed out, the route a settle of it mostly takes. */
  private final Map<String, String> leaseQueues = new HashMap<>();
  private Store store;
  private Broker broker;

  ModelRun(long seed, Supplier<Store> stores, Set<Outcome> outcomesSeen) {
    this.random = new RandomInputs(seed);
    this.stores = stores;
    this.trace = new Trace(seed, clock);
    this.outcomesSeen = outcomesSeen;
    boot();
    for (QueueSpec q : QueueSpec.ALL) {
      broker.putQueue(q.name(), q.patch());
    }
  }

  void run(int steps) {
    for (int i = 1; i <= steps; i++) {
      trace.step(i);
      step();
      compareDepths();
    }
  }

  private void step() {
    int r = random.operation();
    if (r < 14) {
      advanceClock();
    } else if (r < 22) {
      reap();
    } else if (r < 45) {
      publish();
    } else if (r < 63) {
      receive();
    } else if (r < 87) {
      settle();
    } else if (r < 91) {
      redrive();
    } else if (r < 92) {
      purge();
    } else if (r < 94) {
      delete();
    } else if (r < 97) {
      inspect();
    } else {
      restart();
    }
  }

  private void advanceClock() {
    long ms = random.clockStepMs();
    clock.advance(Duration.ofMillis(ms));
    trace.add("clock.advance(" + ms + "ms)");
    // Stats count a message past its TTL by its state until the reaper expires it; Wharf's
    // reaper does so within ~100 ms, so the run reaps at once rather than model that window.
    if (model.ttlDue(now())) {
      reap();
    }
  }

  private void reap() {
    trace.add("reapers().runOnce(now)");
    broker.reapers().runOnce(clock.instant());
    model.reap(now());
  }

  private void publish() {
    String queue = random.pick(QueueSpec.PUBLISHED).name();
    List<Publish> batch = random.publishBatch();
    int n = batch.size();
    trace.add("publish(\"" + queue + "\", " + batch.stream().map(ModelRun::describe).toList()
        + ")");
    List<PublishResult> got = broker.publish(queue, batch);
    trace.add("  -> " + got);
    trace.expect(n, got.size(), "publish: results");
    for (int i = 0; i < n; i++) {
      PublishResult wharf = got.get(i);
      boolean idGivenBefore = model.madeId(wharf.id());
      PublishResult expected = model.publish(queue, batch.get(i), wharf.id(), now());
      trace.expect(expected, wharf, "publish: result [" + i + "]");
      if (!expected.duplicate() && !expected.replaced() && idGivenBefore) {
        throw trace.discrepancy("publish: a new message got an id given before: " + wharf.id());
      }
    }
  }

  private void receive() {
    String queue = random.pick(QueueSpec.ALL).name();
    int max = random.receiveMax();
    Duration visibility = random.visibility();
    trace.add("receive(\"" + queue + "\", " + max + ", wait 0, visibility " + ms(visibility) + ")");
    List<Delivery> got = broker.receive(queue, max, Duration.ZERO, visibility);
    trace.add("  -> " + got.stream().map(d -> d.message().id() + " " + d.leaseId()).toList());
    List<ModelMessage> due = model.due(queue, max, now());
    trace.expect(due.stream().map(m -> m.id).toList(),
        got.stream().map(d -> d.message().id()).toList(), "receive: ids in delivery order");
    long lease = visibility != null ? visibility.toMillis() : QueueSpec.named(queue).visibilityMs();
    for (int i = 0; i < due.size(); i++) {
      Delivery d = got.get(i);
      model.lease(due.get(i), d.leaseId(), now() + lease);
      trace.expect(due.get(i).view(), ModelMessage.view(d.message()), "receive: message");
      trace.expect(now() + lease, d.leaseUntil().toEpochMilli(), "receive: lease_until");
      leasesGiven.add(d.leaseId());
      leaseQueues.put(d.leaseId(), queue);
    }
  }

  private void settle() {
    if (leasesGiven.isEmpty()) {
      return;
    }
    LeaseAction action = random.pick(List.of(LeaseAction.values()));
    List<String> leaseIds = new ArrayList<>();
    for (int i = random.leasesPerSettle(); i > 0; i--) {
      leaseIds.add(random.lease(model.currentLeases(), leasesGiven));
    }
    // Now and then on another queue's route, where every lease is unknown.
    String queue = random.oneIn(15) ? random.pick(QueueSpec.ALL).name()
        : leaseQueues.get(leaseIds.get(0));
    long argMs = random.settleArgumentMs(action);
    trace.add(action + "(\"" + queue + "\", " + leaseIds + ", " + argMs + "ms)");
    List<LeaseOutcome> got = settle(action, queue, leaseIds, Duration.ofMillis(argMs));
    trace.add("  -> " + got);
    // A lease named twice in one request is settled once.
    List<String> distinct = List.copyOf(new LinkedHashSet<>(leaseIds));
    trace.expect(distinct.size(), got.size(), "settle: outcomes");
    for (int i = 0; i < distinct.size(); i++) {
      LeaseOutcome expected =
          model.settle(action, queue, distinct.get(i), argMs, DEAD_REASON, now());
      trace.expect(expected, got.get(i), "settle: outcome [" + i + "]");
      outcomesSeen.add(expected.outcome());
    }
  }

  private List<LeaseOutcome> settle(LeaseAction action, String queue, List<String> leaseIds,
      Duration arg) {
    return switch (action) {
      case ACK -> broker.settle().ack(queue, leaseIds, false);
      case NACK -> broker.settle().nack(queue, leaseIds, arg);
      case DEAD -> broker.settle().dead(queue, leaseIds, DEAD_REASON);
      case DEFER -> broker.settle().defer(queue, leaseIds, arg);
      case EXTEND -> broker.settle().extend(queue, leaseIds, arg);
    };
  }

  private void redrive() {
    String queue = random.pick(QueueSpec.PUBLISHED).name();
    List<String> ids = random.redriveIds(model.deadOf(queue),
        model.messages().stream().map(m -> m.id).toList());
    trace.add("redrive(\"" + queue + "\", " + ids + ")");
    Redriven got = broker.redrive(queue, ids);
    trace.add("  -> " + got);
    trace.expect(model.redrive(queue, ids, now()), got, "redrive");
  }

  private void purge() {
    String queue = random.pick(QueueSpec.ALL).name();
    trace.add("purge(\"" + queue + "\")");
    long got = broker.purge(queue);
    trace.add("  -> " + got);
    trace.expect(model.purge(queue), got, "purge: messages deleted");
  }

  private void delete() {
    List<ModelMessage> all = model.messages();
    if (all.isEmpty()) {
      return;
    }
    ModelMessage m = random.pick(all);
    // Now and then through another queue, where the message is not found.
    String queue = random.oneIn(5) ? random.pick(QueueSpec.ALL).name() : m.queue;
    trace.add("deleteMessage(\"" + queue + "\", " + m.id + ")");
    boolean found = true;
    try {
      broker.deleteMessage(queue, m.id);
    } catch (BrokerException.MessageNotFound e) {
      found = false;
    }
    trace.add("  -> " + (found ? "deleted" : "not found"));
    trace.expect(model.delete(queue, m.id), found, "deleteMessage: found");
  }

  private void inspect() {
    List<ModelMessage> all = model.messages();
    if (!all.isEmpty()) {
      ModelMessage m = random.pick(all);
      trace.add("message(\"" + m.queue + "\", " + m.id + ")");
      compare(m);
    }
  }

  private void restart() {
    trace.add("restart (broker and store closed, opened again on the same database)");
    close();
    boot();
    model.restarted();
    // Leases held in memory are written back at a clean stop: every message is as it was.
    model.messages().forEach(this::compare);
  }

  private void compare(ModelMessage m) {
    try {
      trace.expect(m.view(), ModelMessage.view(broker.message(m.queue, m.id)), "message");
    } catch (BrokerException.MessageNotFound e) {
      throw trace.discrepancy("message " + m.id + " not found in " + m.queue + "; model: " + m);
    }
  }

  private void compareDepths() {
    for (QueueSpec q : QueueSpec.ALL) {
      QueueCounts c = broker.stats(q.name()).counts();
      trace.expect(model.depths(q.name(), now()),
          new QueueModel.Depths(c.ready(), c.delayed(), c.leased(), c.expired()),
          "stats(\"" + q.name() + "\") depths");
      if (q.deadLetterQueue() != null) {
        trace.expect((long) model.deadOf(q.name()).size(), broker.stats(q.name()).dead(),
            "stats(\"" + q.name() + "\").dead");
      }
    }
  }

  private void boot() {
    store = stores.get();
    store.start();
    broker = new Broker(store, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
  }

  private long now() {
    return clock.millis();
  }

  private static String describe(Publish p) {
    return String.format("{%s delay=%s ttl=%s idempotency_key=%s key=%s}",
        new String(p.payload(), StandardCharsets.UTF_8), ms(p.delay()), ms(p.ttl()),
        p.idempotencyKey(), p.key());
  }

  private static String ms(Duration d) {
    return d == null ? "null" : d.toMillis() + "ms";
  }

  @Override
  public void close() {
    broker.close();
    store.close();
  }
}
