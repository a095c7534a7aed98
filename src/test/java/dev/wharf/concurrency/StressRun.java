package dev.wharf.concurrency;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.Store;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One seeded run: publishers and consumers call the broker at once while this thread, the
 * driver, steps the injected clock, runs the reaper after each step (the only reaper, as in a
 * server), and at pauses checks the ledger and the broker's counts against each other. The seed
 * fixes every choice each thread makes and each clock step, not the interleaving.
 */
final class StressRun implements AutoCloseable {
  static final String QUEUE = "work";
  static final String DLQ = "work.dlq";
  static final int MAX_ATTEMPTS = 3;
  private static final int PUBLISHERS = 3;
  private static final int CONSUMERS = 3;
  private static final int PUBLISHES_EACH = 50;
  private static final int STEPS = 32;
  private static final int CALLS_PER_STEP = 8;
  private static final int PAUSE_EVERY = 8;

  private final long seed;
  private final List<Store> stores;
  private final MutableClock clock = MutableClock.atEpochDay();
  private final List<Broker> brokers = new ArrayList<>();
  /** The node the checks read through; with one node, the only one. */
  private final Broker broker;
  private final Ledger ledger = new Ledger();
  private final List<String> problems = new ArrayList<>();

  /**
   * @param stores one store per node, all on the same database (one, for SQLite); workers take
   *     the nodes in turn, so with several, leases taken on one node are raced on another
   */
  StressRun(long seed, List<Store> stores) {
    this.seed = seed;
    this.stores = stores;
    for (Store store : stores) {
      store.start();
      Broker b = new Broker(store, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
      if (brokers.isEmpty()) {
        // Made before the other nodes start, so each loads them at its start.
        b.putQueue(DLQ, new QueueSettingsPatch(null, null, 0, Optional.empty(), null, null,
            null));
        b.putQueue(QUEUE, new QueueSettingsPatch(Duration.ofSeconds(5), null, MAX_ATTEMPTS,
            Optional.of(DLQ), null, null, null));
      }
      b.startWithoutReapers();
      brokers.add(b);
    }
    broker = brokers.get(0);
  }

  /** A reaper pass at the clock's now on every node: the one that holds the reaper lock works. */
  private void reap() {
    brokers.forEach(b -> b.reapers().runOnce(clock.instant()));
  }

  /** Runs to the end and returns every broken invariant found, empty when none was. */
  List<String> run() throws InterruptedException {
    Random random = new Random(seed);
    PauseGate gate = new PauseGate(PUBLISHERS + CONSUMERS);
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < PUBLISHERS; i++) {
      workers.add(Thread.ofPlatform().name("publisher-" + i).unstarted(new PublisherLoop(
          "p" + i, random.nextLong(), node(i), clock, ledger, gate, QUEUE, PUBLISHES_EACH)));
    }
    for (int i = 0; i < CONSUMERS; i++) {
      workers.add(Thread.ofPlatform().name("consumer-" + i).unstarted(new ConsumerLoop(
          "c" + i, random.nextLong(), node(i + 1), clock, ledger, gate, QUEUE)));
    }
    workers.forEach(Thread::start);
    try {
      long calls = 0;
      for (int step = 1; step <= STEPS && problems.isEmpty(); step++) {
        calls = gate.awaitCalls(calls, CALLS_PER_STEP);
        clock.advance(Duration.ofMillis(200 + random.nextInt(2_300)));
        reap();
        if (step % PAUSE_EVERY == 0) {
          gate.pause();
          check("pause after step " + step, false);
          gate.resume();
        }
      }
    } finally {
      gate.stop();
      for (Thread t : workers) {
        t.join(TimeUnit.SECONDS.toMillis(30));
        if (t.isAlive()) {
          problems.add(t.getName() + " did not stop");
        }
      }
    }
    if (problems.isEmpty()) {
      // Past every lease (extends included) and every delay: all that is left is settled.
      clock.advance(Duration.ofMinutes(2));
      check("end", true);
    }
    return problems;
  }

  private void check(String when, boolean atEnd) {
    long now = clock.millis();
    reap();
    List<String> found = new ArrayList<>();
    ledger.surprises().forEach(s -> found.add("surprise: " + s));
    found.addAll(new HistoryChecks(ledger, QUEUE, MAX_ATTEMPTS).run());
    StoreChecks store = new StoreChecks(ledger, broker, QUEUE, DLQ, MAX_ATTEMPTS);
    found.addAll(store.stats(now));
    if (atEnd) {
      found.addAll(store.contents(now));
    }
    found.forEach(p -> problems.add("[" + when + ", clock +" + (now - epoch()) + " ms] " + p));
  }

  private Broker node(int i) {
    return brokers.get(i % brokers.size());
  }

  private static long epoch() {
    return MutableClock.atEpochDay().millis();
  }

  /** A line for a passing run: how much it did, so a run that did nothing shows. */
  String summary() {
    Map<String, Integer> outcomes = new TreeMap<>();
    int deliveries = 0;
    for (List<Delivered> ds : ledger.deliveries().values()) {
      for (Delivered d : ds) {
        deliveries++;
        for (Settled s : d.settles()) {
          outcomes.merge(s.outcome() + (s.superseded() ? "(superseded)" : ""), 1, Integer::sum);
        }
      }
    }
    return "seed " + seed + ": " + ledger.publishes().size() + " ids, " + deliveries
        + " deliveries, outcomes " + outcomes;
  }

  @Override
  public void close() {
    brokers.forEach(Broker::close);
    stores.forEach(Store::close);
  }
}
