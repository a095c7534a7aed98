package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.ReapResult;
import dev.wharf.store.Store;
import dev.wharf.testing.MutableClock;
import dev.wharf.testing.Publishes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two Wharf nodes (a store and a broker each) on one schema, in one JVM. */
class PostgresNodesTest {
  /** Long enough that only NOTIFY, never the polling fallback, can wake a waiter in a test. */
  private static final long NO_POLL_MS = 120_000;
  /**
   * How long a node may take to hear another or to run a claim: far more than either takes, even
   * on a loaded machine, and still well inside {@link #NO_POLL_MS}, so only a notification counts.
   */
  private static final Duration SETTLE = Duration.ofSeconds(30);

  private final MutableClock clock = MutableClock.atEpochDay();
  private final List<AutoCloseable> open = new ArrayList<>();
  private PostgresSettings settings;

  /** A node; {@code claims} counts finished claims, so a test knows a receive is about to park. */
  private record Node(PostgresStore store, Broker broker, AtomicInteger claims) {}

  @BeforeEach
  void schema() {
    settings = TestDatabase.freshSchema(6);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    TestDatabase.dropSchema(TestDatabase.schemaOf(settings));
  }

  private Node node(long pollMs) {
    PostgresStore store = new PostgresStore(settings, pollMs);
    store.start();
    open.add(store);
    AtomicInteger claims = new AtomicInteger();
    Store counting = (Store) Proxy.newProxyInstance(
        Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
          Object result;
          try {
            result = method.invoke(store, args);
          } catch (InvocationTargetException e) {
            if (method.getName().startsWith("messagesClaim")) {
              claims.incrementAndGet();
            }
            throw e.getCause();
          }
          // A claim counts once it has run: the asynchronous one when its future completes.
          if (result instanceof CompletableFuture<?> pending
              && method.getName().equals("messagesClaimAsync")) {
            pending.whenComplete((done, failure) -> claims.incrementAndGet());
          } else if (method.getName().equals("messagesClaim")) {
            claims.incrementAndGet();
          }
          return result;
        });
    Broker broker =
        new Broker(counting, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
    open.add(broker);
    return new Node(store, broker, claims);
  }

  private static void eventually(Duration limit, BooleanSupplier condition) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within " + limit).isLessThan(deadline);
      LockSupport.parkNanos(5_000_000);
    }
  }

  /** A 30 s receive of one message from "q" on {@code node}, once its first claim found none. */
  /** Two nodes without the polling fallback, and queue {@code q}, made on the first, on both. */
  private Node[] twoNodesWithQueue() {
    Node a = node(NO_POLL_MS);
    Node b = node(NO_POLL_MS);
    a.broker().putQueue("q", QueueSettingsPatch.EMPTY);
    eventually(SETTLE, () -> b.broker().queueNames().contains("q"));
    return new Node[] {a, b};
  }

  private static Future<List<Delivery>> parkedReceive(ExecutorService pool, Node node) {
    int before = node.claims().get();
    Future<List<Delivery>> waiting =
        pool.submit(() -> node.broker().receive("q", 1, Duration.ofSeconds(30), null));
    eventually(SETTLE, () -> node.claims().get() > before);
    return waiting;
  }

  @Test
  void nodesStartingAtOnceMigrateTheSchemaOnce() throws Exception {
    try (var pool = Executors.newFixedThreadPool(4)) {
      List<Future<PostgresStore>> starts = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        starts.add(pool.submit(() -> {
          PostgresStore s = new PostgresStore(settings, NO_POLL_MS);
          s.start();
          return s;
        }));
      }
      for (Future<PostgresStore> f : starts) {
        open.add(f.get(60, TimeUnit.SECONDS));
      }
    }
    try (Connection c = DriverManager.getConnection(settings.url());
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT version FROM schema_version ORDER BY version")) {
      List<Integer> versions = new ArrayList<>();
      while (rs.next()) {
        versions.add(rs.getInt(1));
      }
      // One row per version, each written once.
      assertThat(versions)
          .isEqualTo(IntStream.rangeClosed(1, PgSchema.latest()).boxed().toList());
    }
  }

  @Test
  void competingConsumersOnTwoNodesNeverHoldTheSameMessage() throws Exception {
    Node a = node(NO_POLL_MS);
    Node b = node(NO_POLL_MS);
    a.broker().putQueue("q", QueueSettingsPatch.EMPTY);
    for (int i = 0; i < 10; i++) {
      List<Publish> batch = new ArrayList<>();
      for (int j = 0; j < 100; j++) {
        batch.add(Publish.json("" + (i * 100 + j)));
      }
      (i % 2 == 0 ? a : b).broker().publish("q", batch);
    }
    eventually(SETTLE, () -> b.broker().queueNames().contains("q"));
    Set<String> held = ConcurrentHashMap.newKeySet();
    Set<String> done = ConcurrentHashMap.newKeySet();
    AtomicInteger overlaps = new AtomicInteger();
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> fs = new ArrayList<>();
      for (int c = 0; c < 8; c++) {
        Broker broker = (c % 2 == 0 ? a : b).broker();
        fs.add(pool.submit(() -> {
          for (int round = 0; round < 200; round++) {
            List<Delivery> got = broker.receive("q", 9, Duration.ZERO, null);
            if (got.isEmpty()) {
              return null;
            }
            List<String> leases = new ArrayList<>();
            for (Delivery d : got) {
              if (!held.add(d.message().id())) {
                overlaps.incrementAndGet();
              }
              leases.add(d.leaseId());
            }
            for (Delivery d : got) {
              held.remove(d.message().id());
              done.add(d.message().id());
            }
            assertThat(broker.settle().ack("q", leases, false))
                .allMatch(o -> o.outcome() == Outcome.ACKED);
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get(60, TimeUnit.SECONDS);
      }
    }
    assertThat(overlaps.get()).isZero();
    assertThat(done).hasSize(1000);
    assertThat(a.broker().stats("q").counts().depth()).isZero();
  }

  /**
   * A notification says how many messages came: one commit of more than a receive's largest batch
   * wakes as many parked consumers on another node, not just a batch's worth.
   */
  @Test
  void aLargeCommitOnOneNodeWakesAsManyLongPollsOnAnother() throws Exception {
    Node[] nodes = twoNodesWithQueue();
    Node a = nodes[0];
    Node b = nodes[1];
    int consumers = BrokerOptions.MAX_RECEIVE_BATCH + 30;
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<List<Delivery>>> waiting = new ArrayList<>();
      for (int i = 0; i < consumers; i++) {
        waiting.add(parkedReceive(pool, b));
      }
      List<Publish> batch = new ArrayList<>();
      for (int i = 0; i < consumers; i++) {
        batch.add(Publish.json(Integer.toString(i)));
      }
      a.broker().publish("q", batch);
      Set<String> got = ConcurrentHashMap.newKeySet();
      // Well inside the 30 s wait (whose end claims once more) and the 120 s poll: only the
      // notification can bring each one by then.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      for (Future<List<Delivery>> w : waiting) {
        List<Delivery> one = w.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        assertThat(one).hasSize(1);
        got.add(one.get(0).message().id());
      }
      assertThat(got).hasSize(consumers);
    }
  }

  @Test
  void aPublishOnOneNodeWakesALongPollOnAnother() throws Exception {
    Node[] nodes = twoNodesWithQueue();
    Node a = nodes[0];
    Node b = nodes[1];
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int round = 0; round < 2; round++) {
        if (round == 1) {
          // The listening connection drops: the node reconnects and hears again.
          b.store().dropListenConnection();
        }
        // Its first claim found nothing: from here only a wake-up can bring the message.
        Future<List<Delivery>> waiting = parkedReceive(pool, b);
        String id = a.broker().publish("q", List.of(Publish.json("1"))).get(0).id();
        long sent = System.nanoTime();
        // Well inside the 30 s wait and the 120 s poll: only a notification can do this.
        List<Delivery> got = waiting.get(10, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - sent) / 1_000_000;
        assertThat(got).extracting(d -> d.message().id()).containsExactly(id);
        System.out.println("cross-node wake-up round " + round + ": " + ms + " ms");
        b.broker().settle().ack("q", List.of(got.get(0).leaseId()), false);
      }
    }
  }

  /**
   * A waiter parked before a message was published with a delay (or nacked with one) on another
   * node is woken at its time, by the notification's time, not by the polling fallback.
   */
  @Test
  void aDelayedPublishOrNackOnOneNodeWakesALongPollOnAnotherAtItsTime() throws Exception {
    Node[] nodes = twoNodesWithQueue();
    Node a = nodes[0];
    Node b = nodes[1];
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<List<Delivery>> waiting = parkedReceive(pool, b);
      String id =
          a.broker().publish("q", List.of(Publishes.delayed("1", Duration.ofMillis(200))))
              .get(0).id();
      // Before its time the message is not there: the wake that comes then finds it.
      clock.advance(Duration.ofMillis(200));
      List<Delivery> got = waiting.get(10, TimeUnit.SECONDS);
      assertThat(got).extracting(d -> d.message().id()).containsExactly(id);

      waiting = parkedReceive(pool, b);
      a.broker().settle().nack("q", List.of(got.get(0).leaseId()), Duration.ofMillis(200));
      clock.advance(Duration.ofMillis(200));
      assertThat(waiting.get(10, TimeUnit.SECONDS))
          .extracting(d -> d.message().id()).containsExactly(id);
    }
  }

  @Test
  void queueSettingsChangedOnOneNodeAreInForceOnTheOther() {
    Node[] nodes = twoNodesWithQueue();
    Node a = nodes[0];
    Node b = nodes[1];
    a.broker().putQueue("q", new QueueSettingsPatch(null, null, 7, null, null, null, null));
    eventually(SETTLE, () -> b.broker().settings("q").maxAttempts() == 7);
    a.broker().deleteQueue("q");
    eventually(SETTLE, () -> !b.broker().queueNames().contains("q"));
  }

  @Test
  void aSettingsChangeOrDeletionOnOneNodeEndsTheWaitsOnAnother() throws Exception {
    Node[] nodes = twoNodesWithQueue();
    Node a = nodes[0];
    Node b = nodes[1];
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<List<Delivery>> waiting = parkedReceive(pool, b);
      // New consumer tokens, say: B's parked consumer was let in under the old settings.
      a.broker().putQueue("q", new QueueSettingsPatch(null, null, 7, null, null, null, null));
      assertThat(waiting.get(10, TimeUnit.SECONDS)).isEmpty();

      Future<List<Delivery>> next = parkedReceive(pool, b);
      a.broker().deleteQueue("q");
      assertThatThrownBy(() -> next.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(BrokerException.QueueNotFound.class);
    }
  }

  @Test
  void writesAfterTheServerDroppedTheConnectionsSucceedOnNewOnes() throws Exception {
    Node a = node(NO_POLL_MS);
    a.broker().putQueue("q", QueueSettingsPatch.EMPTY);
    // As an outage, or an idle timeout, ends them: the writer finds out at its next statement.
    int killed = TestDatabase.query(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '"
            + a.store().applicationName() + "'");
    assertThat(killed).isPositive();
    for (int i = 0; i < 3; i++) {
      // Nothing was committed on the dead connection: the batch runs again on a new one.
      a.broker().publish("q", List.of(Publish.json(String.valueOf(i))));
    }
    assertThat(a.broker().receive("q", 10, Duration.ZERO, null)).hasSize(3);
  }

  @Test
  void pollingFallbackCarriesSettingsWhenNotificationsAreLost() {
    Node a = node(NO_POLL_MS);
    Node b = node(50);
    // B misses the notification (its connection is down), but its next poll sees the new version.
    b.store().dropListenConnection();
    a.broker().putQueue("q", new QueueSettingsPatch(null, null, 4, null, null, null, null));
    eventually(SETTLE, () -> b.broker().queueNames().contains("q"));
    assertThat(b.broker().settings("q").maxAttempts()).isEqualTo(4);
  }

  @Test
  void pollingFallbackWakesAConsumerForAMessageWhoseNotificationWasLost() throws Exception {
    Node a = node(NO_POLL_MS);
    Node b = node(50);
    a.broker().putQueue("q", QueueSettingsPatch.EMPTY);
    eventually(SETTLE, () -> b.broker().queueNames().contains("q"));
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      int before = b.claims().get();
      Future<List<Delivery>> waiting =
          pool.submit(() -> b.broker().receive("q", 1, Duration.ofSeconds(30), null));
      eventually(SETTLE, () -> b.claims().get() > before);
      // A row written with no NOTIFY at all, as if the notification had been lost.
      try (Connection c = DriverManager.getConnection(settings.url());
          Statement s = c.createStatement()) {
        long at = clock.instant().toEpochMilli();
        s.execute("INSERT INTO messages(id, queue, state, content_type, payload, attempt,"
            + " published_at, visible_at) VALUES ('lost-1', 'q', 0, 0, '\\x31', 0, " + at + ", "
            + at + ")");
        s.execute("INSERT INTO counters VALUES ('q', 0, '', 0, 1) ON CONFLICT (queue, state,"
            + " origin, stripe) DO UPDATE SET n = counters.n + 1");
      }
      assertThat(waiting.get(10, TimeUnit.SECONDS))
          .extracting(d -> d.message().id()).containsExactly("lost-1");
    }
  }

  @Test
  void leasesOfADeadNodeExpireAndAreRedeliveredThroughAnotherWhichTakesTheReapers() {
    Node a = node(NO_POLL_MS);
    Node b = node(NO_POLL_MS);
    a.broker().putQueue("q", QueueSettingsPatch.EMPTY);
    List<Publish> batch = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      batch.add(Publish.json("" + i));
    }
    a.broker().publish("q", batch);
    List<Delivery> leased = a.broker().receive("q", 5, Duration.ZERO, null);
    assertThat(leased).hasSize(5);
    // A runs the reapers; B's passes do nothing while A holds the lock.
    a.broker().reapers().runOnce(clock.instant());
    assertThat(a.store().reaperLockHeld()).isTrue();
    clock.advance(Duration.ofSeconds(31));
    assertThat(b.store().leasesExpire(new LeaseExpiryRequest(clock.instant(), 100,
        q -> new DeadLetterPolicy(0, null)))).isEqualTo(ReapResult.NONE);
    assertThat(b.store().reaperLockHeld()).isFalse();

    // A dies: its connections close, nothing is released or rolled forward.
    a.store().close();
    eventually(SETTLE, () -> {
      b.broker().reapers().runOnce(clock.instant());
      return b.store().reaperLockHeld();
    });
    // The lock may have come free part-way through that pass, after its lease-expiry step.
    b.broker().reapers().runOnce(clock.instant());
    List<Delivery> again = b.broker().receive("q", 10, Duration.ZERO, null);
    assertThat(again).extracting(d -> d.message().id())
        .containsExactlyInAnyOrderElementsOf(leased.stream().map(d -> d.message().id()).toList());
    assertThat(again).allMatch(d -> d.message().attempt() == 2);
  }
}
