package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.StoreException;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each of a node's connections ended by the server (as an outage or an administrator would) while
 * the node works: what it answered must match what was committed, and it must recover.
 */
class PgConnectionLossTest {
  private static final long NO_POLL_MS = 120_000;
  private static final Duration SETTLE = Duration.ofSeconds(30);

  private final MutableClock clock = MutableClock.atEpochDay();
  private final List<AutoCloseable> open = new ArrayList<>();
  private PostgresSettings settings;
  private String schema;

  private record Node(PostgresStore store, Broker broker) {}

  @BeforeEach
  void schema() {
    settings = TestDatabase.freshSchema(6);
    schema = TestDatabase.schemaOf(settings);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    TestDatabase.dropSchema(schema);
  }

  private Node node(long pollMs) {
    PostgresStore store = new PostgresStore(settings, pollMs);
    store.start();
    open.add(store);
    Broker broker = new Broker(store, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
    open.add(broker);
    return new Node(store, broker);
  }

  /** Ends the sessions of one node whose application name is {@code app} and match {@code and}. */
  private static int kill(String app, String and) {
    return TestDatabase.query(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '"
            + app + "' AND pid <> pg_backend_pid()" + (and == null ? "" : " AND " + and));
  }

  private static void eventually(Duration limit, BooleanSupplier condition) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within " + limit).isLessThan(deadline);
      LockSupport.parkNanos(5_000_000);
    }
  }

  @Test
  void writerLanesKilledUnderLoadNeverAnswerAWriteTheyDidNotCommitNorWriteOneTwice()
      throws Exception {
    Node a = node(NO_POLL_MS);
    a.broker().putQueue("q", QueueSettingsPatch.EMPTY);
    Set<String> answered = ConcurrentHashMap.newKeySet();
    AtomicInteger failed = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    List<Future<?>> publishers = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
      for (int t = 0; t < 8; t++) {
        int thread = t;
        publishers.add(pool.submit(() -> {
          for (int i = 0; !stop.get(); i++) {
            String body = "\"" + thread + "-" + i + "\"";
            try {
              a.broker().publish("q", List.of(Publish.json(body)));
              answered.add(body);
            } catch (RuntimeException e) {
              failed.incrementAndGet();
            }
          }
        }));
      }
      int killed = 0;
      for (int round = 0; round < 10; round++) {
        LockSupport.parkNanos(100_000_000);
        // The lanes only: their last statement is a write, the listener's a poll.
        killed += kill(a.store().applicationName(), "query NOT LIKE '%queues_changed WHERE id%'"
            + " AND query NOT LIKE '%advisory_lock%'");
      }
      stop.set(true);
      for (Future<?> f : publishers) {
        f.get(30, TimeUnit.SECONDS);
      }
      assertThat(killed).isPositive();
    }
    List<String> bodies = new ArrayList<>();
    try (var c = java.sql.DriverManager.getConnection(settings.url());
        var s = c.createStatement();
        var rs = s.executeQuery("SELECT convert_from(payload, 'UTF8') FROM messages")) {
      while (rs.next()) {
        bodies.add(rs.getString(1));
      }
    }
    // Every write answered is there; nothing is there twice; a failed one at most once.
    assertThat(Set.copyOf(bodies)).hasSameSizeAs(bodies).containsAll(answered);
    assertThat(bodies.size()).isLessThanOrEqualTo(answered.size() + failed.get());
    assertThat(a.store().queueCounts("q", clock.instant()).ready()).isEqualTo(bodies.size());
    // And the node writes again.
    a.broker().publish("q", List.of(Publish.json("\"after\"")));
  }

  @Test
  void theReaperLockMovesToAnotherNodeWhenItsHoldersSessionIsKilled() {
    Node a = node(NO_POLL_MS);
    Node b = node(NO_POLL_MS);
    LeaseExpiryRequest none =
        new LeaseExpiryRequest(clock.instant(), 100, q -> new DeadLetterPolicy(0, null));
    a.store().leasesExpire(none);
    assertThat(a.store().reaperLockHeld()).isTrue();
    b.store().leasesExpire(none);
    assertThat(b.store().reaperLockHeld()).isFalse();

    int killed = kill(a.store().applicationName(), "pid IN (SELECT pid FROM pg_locks"
        + " WHERE locktype = 'advisory' AND granted)");
    assertThat(killed).isEqualTo(1);
    eventually(SETTLE, () -> {
      b.store().leasesExpire(none);
      return b.store().reaperLockHeld();
    });
    // A's next pass finds its session gone and stops counting itself the holder.
    try {
      a.store().leasesExpire(none);
    } catch (StoreException expected) {
      // the pass on the dead session
    }
    a.store().leasesExpire(none);
    assertThat(a.store().reaperLockHeld()).isFalse();
  }

  @Test
  void aNodeWhoseListenerIsKilledStillWakesItsLongPollsAndReloadsSettings() throws Exception {
    Node a = node(NO_POLL_MS);
    Node b = node(NO_POLL_MS);
    a.broker().putQueue("q", QueueSettingsPatch.EMPTY);
    eventually(SETTLE, () -> b.broker().queueNames().contains("q"));
    int killed = kill(b.store().applicationName(),
        "query = 'SELECT version FROM queues_changed WHERE id = 1'");
    assertThat(killed).isEqualTo(1);
    // Made while B's listener may be down: B hears it when it reconnects, by its first poll.
    a.broker().putQueue("q", new QueueSettingsPatch(null, null, 4, null, null, null, null));
    eventually(SETTLE, () -> b.broker().settings("q").maxAttempts() == 4);
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<List<Delivery>> waiting =
          pool.submit(() -> b.broker().receive("q", 1, Duration.ofSeconds(30), null));
      LockSupport.parkNanos(200_000_000);
      kill(b.store().applicationName(),
          "query = 'SELECT version FROM queues_changed WHERE id = 1'");
      a.broker().publish("q", List.of(Publish.json("1")));
      assertThat(waiting.get(20, TimeUnit.SECONDS)).hasSize(1);
    }
  }

  @Test
  void readsRecoverWhenThePoolsConnectionsAreKilled() {
    Node a = node(NO_POLL_MS);
    a.broker().putQueue("q", QueueSettingsPatch.EMPTY);
    assertThat(a.store().queuesGet("q")).isPresent();
    int killed = kill(a.store().applicationName() + "-reads", null);
    assertThat(killed).isPositive();
    // At once, inside the pool's window in which it lends a connection without checking it.
    assertThat(a.store().queuesGet("q")).isPresent();
    assertThat(a.store().unready()).isNull();
  }
}
