package dev.wharf.model;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.BrokerException;
import dev.wharf.core.Publish;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.PublishResult;
import dev.wharf.store.Redriven;
import dev.wharf.store.Store;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
  /**
   * Windows short next to a run's clock (a few minutes of it), so that idempotency keys, repeated
   * settles and expired messages outlive them within a run.
   */
  private static final QueueModel.Windows WINDOWS = new QueueModel.Windows(40_000, 30_000, 20_000);
  private static final BrokerOptions OPTIONS = new BrokerOptions(
      Duration.ofSeconds(30), 10_000, 1000, Duration.ofMillis(WINDOWS.idempotencyMs()),
      Duration.ofMillis(WINDOWS.expiredRetentionMs()), Duration.ofMillis(WINDOWS.settleMemoryMs()),
      8L << 20);

  private final RandomInputs random;
  /** A new, unstarted store on the run's database, at the start and at each restart. */
  private final Supplier<Store> stores;
  private final MutableClock clock = MutableClock.atEpochDay();
  private final Trace trace;
  private final QueueModel model = new QueueModel(new ModelQueues(), WINDOWS);
  private final StateChecks checks;
  private final SettingsChanges settings;
  private final LongPolls longPolls;
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
    this.checks = new StateChecks(model, trace);
    this.settings = new SettingsChanges(random, model.queues(), trace);
    this.longPolls = new LongPolls(model, trace, this::took);
    boot();
    for (QueueSpec q : QueueSpec.INITIAL) {
      broker.putQueue(q.name(), q.patch());
    }
  }

  void run(int steps) {
    for (int i = 1; i <= steps; i++) {
      trace.step(i);
      longPolls.afterStep(step(), now());
      checks.stats(broker, now());
    }
  }

  /** Returns the queues whose parked consumers a settings change answered. */
  private Set<String> step() {
    int r = random.operation();
    if (r < 14) {
      advanceClock();
    } else if (r < 21) {
      reap();
    } else if (r < 43) {
      publish();
    } else if (r < 61) {
      if (random.oneIn(4)) {
        longPoll();
      } else {
        receive();
      }
    } else if (r < 84) {
      settle();
    } else if (r < 88) {
      redrive();
    } else if (r < 89) {
      purge();
    } else if (r < 91) {
      delete();
    } else if (r < 94) {
      inspect();
    } else if (r < 97) {
      return settings.changeOne(broker);
    } else {
      restart();
    }
    return Set.of();
  }

  private void advanceClock() {
    longPolls.leave();
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
    String queue = random.pick(QueueSpec.PUBLISHED);
    List<Publish> batch = random.publishBatch();
    int n = batch.size();
    trace.add("publish(\"" + queue + "\", " + batch.stream().map(ModelRun::describe).toList()
        + ")");
    String refused = model.publishRefused(queue, batch);
    List<PublishResult> got;
    try {
      got = broker.publish(queue, batch);
    } catch (BrokerException.Invalid e) {
      trace.add("  -> invalid: " + e.getMessage());
      trace.expect(refused != null, true, "publish refused as a whole (model: " + refused + ")");
      return;
    }
    trace.expect(refused, null, "publish refused");
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
    String queue = random.pick(model.queues().names());
    int max = random.receiveMax();
    Duration visibility = random.visibility();
    trace.add("receive(\"" + queue + "\", " + max + ", wait 0, visibility " + ms(visibility) + ")");
    QueueSpec spec = model.queues().spec(queue);
    long lease = visibility != null ? visibility.toMillis() : spec.visibilityMs();
    List<Delivery> got;
    try {
      got = broker.receive(queue, max, Duration.ZERO, visibility);
    } catch (BrokerException.Invalid e) {
      trace.add("  -> invalid: " + e.getMessage());
      trace.expect(true, lease > spec.maxVisibilityMs(), "receive refused: lease over the max");
      return;
    }
    trace.expect(false, lease > spec.maxVisibilityMs(), "receive refused: lease over the max");
    trace.add("  -> " + got.stream().map(d -> d.message().id() + " " + d.leaseId()).toList());
    took(queue, max, lease, got);
  }

  private void longPoll() {
    String queue = random.pick(model.queues().names());
    int max = random.receiveMax();
    if (!longPolls.parked()) {
      longPolls.start(broker, queue, max, now());
    }
  }

  /** Compares what a receive got with what the model says it takes now, and leases it. */
  private void took(String queue, int max, long lease, List<Delivery> got) {
    List<ModelMessage> due = model.due(queue, max, now());
    trace.expect(due.stream().map(m -> m.id).toList(),
        got.stream().map(d -> d.message().id()).toList(), "receive: ids in delivery order");
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
    String queue = random.oneIn(15) ? random.pick(model.queues().names())
        : leaseQueues.get(leaseIds.get(0));
    long argMs = random.settleArgumentMs(action);
    trace.add(action + "(\"" + queue + "\", " + leaseIds + ", " + argMs + "ms)");
    // An extend past the queue's maximum lease is refused whole, before any lease is looked at.
    boolean overMax = action == LeaseAction.EXTEND
        && argMs > model.queues().spec(queue).maxVisibilityMs();
    List<LeaseOutcome> got;
    try {
      got = settle(action, queue, leaseIds, Duration.ofMillis(argMs));
    } catch (BrokerException.Invalid e) {
      trace.add("  -> invalid: " + e.getMessage());
      trace.expect(true, overMax, "extend refused: over max_visibility_timeout");
      return;
    }
    trace.expect(false, overMax, "extend refused: over max_visibility_timeout");
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
    String queue = random.pick(QueueSpec.PUBLISHED);
    List<String> ids = random.redriveIds(model.deadOf(queue),
        model.messages().stream().map(m -> m.id).toList());
    trace.add("redrive(\"" + queue + "\", " + ids + ")");
    Redriven got = broker.redrive(queue, ids);
    trace.add("  -> " + got);
    trace.expect(model.redrive(queue, ids, now()), got, "redrive");
  }

  private void purge() {
    String queue = random.pick(model.queues().names());
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
    String queue = random.oneIn(5) ? random.pick(model.queues().names()) : m.queue;
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
    if (random.oneIn(3)) {
      String queue = random.pick(model.queues().names());
      trace.add("browse(\"" + queue + "\")");
      checks.queue(broker, queue);
    } else if (!all.isEmpty()) {
      ModelMessage m = random.pick(all);
      trace.add("message(\"" + m.queue + "\", " + m.id + ")");
      checks.message(broker, m);
    }
  }


  private void restart() {
    longPolls.leave();
    trace.add("restart (broker and store closed, opened again on the same database)");
    close();
    boot();
    model.restarted();
    // Leases held in memory are written back at a clean stop: every message is as it was, and
    // every queue with the settings it was given.
    model.messages().forEach(m -> checks.message(broker, m));
    settings.compareAll(broker);
  }

  private void boot() {
    store = stores.get();
    store.start();
    broker = new Broker(store, clock, OPTIONS, new SimpleMeterRegistry());
    broker.startWithoutReapers();
  }

  private long now() {
    return clock.millis();
  }

  private static String describe(Publish p) {
    return String.format("{%s delay=%s ttl=%s idempotency_key=%s key=%s}",
        MessageContent.of(p).describe(), ms(p.delay()), ms(p.ttl()), p.idempotencyKey(), p.key());
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
