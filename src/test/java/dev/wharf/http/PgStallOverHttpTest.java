package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.app.StoreFactory;
import dev.wharf.config.StorageConfig;
import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.http.Api.Reply;
import dev.wharf.store.Store;
import dev.wharf.store.postgres.PostgresSettings;
import dev.wharf.store.postgres.TestDatabase;
import dev.wharf.testing.MutableClock;
import dev.wharf.testing.TcpProxy;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server on PostgreSQL whose database stops answering while every connection stays open (a
 * relay the test freezes: a hung server, or a proxy that forwards nothing), then answers again.
 * Keepalives see a live peer then; only the stall timeout ends the waits. Every request is
 * answered within about that timeout, none 2xx for what was not committed, the node stops
 * promptly, and all works again by itself once the database answers, with no answered publish
 * lost. The storage is made as {@code wharf serve} makes it, from a storage config.
 */
class PgStallOverHttpTest {
  private static final Duration STALL = Duration.ofSeconds(1);

  /**
   * What a call may take at most: a statement's stall timeout, then a new connection's login
   * bounded by it too, and a margin for a loaded machine.
   */
  private static final long ANSWER_MS = 2 * STALL.toMillis() + 1500;

  /** How long a measured call is waited for before it counts as hanging. */
  private static final long HANG_MS = 8000;

  private static final Duration BOUND = Duration.ofSeconds(20);

  private final MutableClock clock = MutableClock.atEpochDay();
  private final List<AutoCloseable> open = new ArrayList<>();
  /** Not the common pool: on two cores it has one thread, which a blocked call would hold. */
  private static final ExecutorService ASYNC = Executors.newVirtualThreadPerTaskExecutor();
  private String schema;
  private TcpProxy proxy;
  private Store store;
  private Broker broker;
  private WharfHttp server;
  private Api api;

  @BeforeEach
  void start() {
    PostgresSettings direct = TestDatabase.freshSchema(6);
    schema = TestDatabase.schemaOf(direct);
    TestDatabase.Relayed relayed = TestDatabase.throughRelay(direct);
    proxy = relayed.proxy();
    open.add(proxy);
    String url = relayed.url();
    store = StoreFactory.create(new StorageConfig.Postgres(
        url, direct.user(), direct.password(), direct.poolSize(), STALL));
    store.start();
    open.add(store);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    broker = new Broker(store, clock, BrokerOptions.defaults(), registry);
    // With the reapers on their own schedule, as in a server: a pass stuck on the stalled
    // database must not hold up anything else.
    broker.start();
    open.add(broker);
    HttpSettings http =
        new HttpSettings("127.0.0.1", 0, 1 << 20, null, false, Duration.ofSeconds(1));
    server = WharfHttp.start(broker, registry, http);
    open.add(server);
    api = new Api("127.0.0.1", server.port());
  }

  @AfterEach
  void stop() throws Exception {
    proxy.thaw();
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    TestDatabase.dropSchema(schema);
  }

  /** A reply and how long it took; no reply when none came within {@link #HANG_MS}. */
  private record Timed(Reply reply, long millis) {
    String describe() {
      if (reply == null) {
        return "no answer after " + millis + " ms";
      }
      return millis + " ms " + reply.status() + " " + reply.text().strip() + " Retry-After="
          + reply.raw().headers().firstValue("Retry-After").orElse("-");
    }
  }

  private static Timed timed(Supplier<Reply> call) {
    long t0 = System.nanoTime();
    CompletableFuture<Reply> r = CompletableFuture.supplyAsync(call, ASYNC);
    try {
      Reply reply = r.get(HANG_MS, TimeUnit.MILLISECONDS);
      return new Timed(reply, (System.nanoTime() - t0) / 1_000_000);
    } catch (TimeoutException e) {
      return new Timed(null, (System.nanoTime() - t0) / 1_000_000);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Timed await(CompletableFuture<Timed> pending) {
    try {
      return pending.get(HANG_MS + 2000, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void eventually(String what, Supplier<Boolean> condition) {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (!condition.get()) {
      assertThat(System.nanoTime()).as(what + " within " + BOUND).isLessThan(deadline);
      LockSupport.parkNanos(20_000_000);
    }
  }

  /** The body's text when the publish was answered 2xx, else null. */
  private String publish(String text) {
    Reply r = api.post("/v1/queues/q/messages", "{\"body\": \"" + text + "\"}");
    return r.status() / 100 == 2 ? text : null;
  }

  private String leaseOf(Reply receive) {
    assertThat(receive.status()).isEqualTo(200);
    return receive.json().at("/messages/0/lease_id").asText();
  }

  @Test
  void everyCallIsAnsweredWithinTheStallTimeoutAndAllWorksOnceTheDatabaseAnswersAgain()
      throws Exception {
    assertThat(api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
    assertThat(api.put("/v1/queues/idle", "{}").status()).isEqualTo(201);
    Set<String> answered = ConcurrentHashMap.newKeySet();
    for (int i = 0; i < 3; i++) {
      answered.add(publish("before-" + i));
    }
    // Two leases held into the stall: one acked during it, one left to expire.
    Reply first = api.post("/v1/queues/q/receive", "{\"max\": 1}");
    String ackedDuring = leaseOf(first);
    answered.remove(first.json().at("/messages/0/body").asText());
    Reply second = api.post("/v1/queues/q/receive", "{\"max\": 1}");
    leaseOf(second);
    String expiring = second.json().at("/messages/0/body").asText();

    // A publisher through it all: whatever it was answered 2xx for must be there afterwards.
    AtomicBoolean stopPublishing = new AtomicBoolean();
    CompletableFuture<Void> publisher = CompletableFuture.runAsync(() -> {
      for (int i = 0; !stopPublishing.get(); i++) {
        String body = publish("p-" + i);
        if (body != null) {
          answered.add(body);
        }
        LockSupport.parkNanos(5_000_000);
      }
    }, ASYNC);
    // A long-poll parked on an empty queue when the database stalls: its timeout is a timer's,
    // which a reaper pass stuck on the database must not hold up.
    CompletableFuture<Timed> parked = CompletableFuture.supplyAsync(
        () -> timed(() -> api.post("/v1/queues/idle/receive", "{\"wait\": \"3s\"}")), ASYNC);
    LockSupport.parkNanos(300_000_000);

    proxy.freeze();
    long frozenAt = System.nanoTime();
    // Past both leases' 30 s: the reapers try to end them while the database says nothing.
    clock.advance(Duration.ofMinutes(1));
    Map<String, Timed> during = new LinkedHashMap<>();
    during.put("readyz", timed(() -> api.get("/readyz")));
    during.put("healthz", timed(() -> api.get("/healthz")));
    during.put("publish", timed(() -> api.post("/v1/queues/q/messages", "{\"body\": \"s\"}")));
    during.put("publish-batch", timed(() -> api.post("/v1/queues/q/messages",
        "{\"messages\": [{\"body\": \"b1\"}, {\"body\": \"b2\"}]}")));
    during.put("receive", timed(() -> api.post("/v1/queues/q/receive", "{}")));
    during.put("receive-wait",
        timed(() -> api.post("/v1/queues/q/receive", "{\"wait\": \"2s\"}")));
    during.put("ack", timed(() -> api.post("/v1/queues/q/ack",
        "{\"lease_id\": \"" + ackedDuring + "\"}")));
    during.put("queues", timed(() -> api.get("/v1/queues")));
    during.put("queue", timed(() -> api.get("/v1/queues/q")));
    during.put("browse", timed(() -> api.get("/v1/queues/q/messages")));
    during.put("readyz-again", timed(() -> api.get("/readyz")));
    Timed parkedAnswer = await(parked);
    System.out.println("stall: every call answered " + (System.nanoTime() - frozenAt) / 1_000_000
        + " ms into the stall");

    System.out.println("stall: parked long-poll (wait 3s) " + parkedAnswer.describe());
    during.forEach((what, t) -> System.out.println("stall: " + what + " " + t.describe()));

    SoftAssertions soft = new SoftAssertions();
    during.forEach((what, t) -> {
      soft.assertThat(t.reply()).as(what + " answered").isNotNull();
      if (t.reply() == null) {
        return;
      }
      soft.assertThat(t.millis()).as(what + " answered within the stall bound")
          .isLessThan(ANSWER_MS);
      if (!what.equals("healthz")) {
        soft.assertThat(t.reply().status()).as(what + " status").isEqualTo(503);
        soft.assertThat(t.reply().code()).as(what + " code").isEqualTo("unavailable");
        soft.assertThat(t.reply().raw().headers().firstValue("Retry-After"))
            .as(what + " Retry-After").isPresent();
      }
    });
    // Alive: a restart would not make the database answer.
    soft.assertThat(during.get("healthz").reply()).isNotNull();
    if (during.get("healthz").reply() != null) {
      soft.assertThat(during.get("healthz").reply().status()).isEqualTo(200);
      soft.assertThat(during.get("healthz").millis()).isLessThan(500);
    }
    // Readiness waits at most a second for the database, whatever the stall timeout.
    soft.assertThat(during.get("readyz").millis()).as("readyz within its second").isLessThan(2000);
    // The parked long-poll ends near its wait: empty, or unavailable after its last claim.
    soft.assertThat(parkedAnswer.reply()).as("parked long-poll answered").isNotNull();
    if (parkedAnswer.reply() != null) {
      soft.assertThat(parkedAnswer.millis()).isLessThan(3000 + ANSWER_MS);
      soft.assertThat(parkedAnswer.reply().status()).isIn(200, 503);
    }
    soft.assertAll();

    proxy.thaw();
    long thawedAt = System.nanoTime();
    eventually("readiness to come back", () -> api.get("/readyz").status() == 200);
    System.out.println("stall: ready again " + (System.nanoTime() - thawedAt) / 1_000_000
        + " ms after the database answered again");
    stopPublishing.set(true);
    publisher.get(30, TimeUnit.SECONDS);
    assertThat(api.get("/v1/queues").status()).isEqualTo(200);
    answered.add(publish("after"));
    // The lease left to expire does, by the reapers, once the database answers: its message is
    // delivered again.
    answered.add(expiring);
    Set<String> got = new HashSet<>();
    eventually("every answered publish and the expired lease's message to be received", () -> {
      Reply r = api.post("/v1/queues/q/receive", "{\"max\": 100}");
      assertThat(r.status()).isEqualTo(200);
      for (var msg : r.json().at("/messages")) {
        got.add(msg.at("/body").asText());
      }
      return got.containsAll(answered);
    });
    assertThat(answered).doesNotContainNull().hasSizeGreaterThan(4);
  }

  @Test
  void aNodeStopsPromptlyWhileTheDatabaseStalls() {
    assertThat(api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
    assertThat(publish("before")).isNotNull();
    proxy.freeze();
    // Requests under way when the stop comes: a publish, and a long-poll parked meanwhile.
    CompletableFuture<Timed> publishing = CompletableFuture.supplyAsync(
        () -> timed(() -> api.post("/v1/queues/q/messages", "{\"body\": \"during\"}")), ASYNC);
    CompletableFuture<Timed> parked = CompletableFuture.supplyAsync(
        () -> timed(() -> api.post("/v1/queues/q/receive", "{\"wait\": \"20s\"}")), ASYNC);
    LockSupport.parkNanos(200_000_000);

    long t0 = System.nanoTime();
    // As WharfApp closes them: the server, the broker, then the store.
    server.close();
    broker.close();
    store.close();
    long stopMs = (System.nanoTime() - t0) / 1_000_000;
    open.removeAll(List.of(server, broker, store));
    System.out.println("stall: stopped in " + stopMs + " ms; parked long-poll "
        + await(parked).describe() + "; publish " + await(publishing).describe());
    // The HTTP server's own wait for answers under way, then every storage wait bounded.
    assertThat(stopMs).isLessThan(5000 + ANSWER_MS);
  }

  @Test
  void aPurgeWaitsOutTheStallAndIsAnsweredOnceTheDatabaseAnswers() {
    assertThat(api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
    connectEveryLane();
    proxy.freeze();
    CompletableFuture<Reply> purge =
        CompletableFuture.supplyAsync(() -> api.post("/v1/queues/q/purge", ""), ASYNC);
    // Long work is not cut at the stall timeout: a large queue's purge may rightly run long.
    assertThatThrownBy(() -> purge.get(3 * STALL.toMillis(), TimeUnit.MILLISECONDS))
        .isInstanceOf(TimeoutException.class);
    proxy.thaw();
    Reply r = purge.join();
    assertThat(r.status()).as(r.text()).isEqualTo(200);
  }

  @Test
  void aNodeStopsWhileAPurgeWaitsOutTheStall() throws Exception {
    assertThat(api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
    assertThat(api.post("/v1/queues/q/purge", "").status()).isEqualTo(200);
    proxy.freeze();
    CompletableFuture<Reply> purge =
        CompletableFuture.supplyAsync(() -> api.post("/v1/queues/q/purge", ""), ASYNC);
    LockSupport.parkNanos(300_000_000);
    assertThat(purge).isNotDone();
    // No stall timeout bounds the purge's wait: only the stop's closing its connection ends it.
    long t0 = System.nanoTime();
    CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> {
      server.close();
      broker.close();
      store.close();
    }, ASYNC);
    try {
      stopping.get(30, TimeUnit.SECONDS);
    } finally {
      proxy.thaw();
    }
    long stopMs = (System.nanoTime() - t0) / 1_000_000;
    open.removeAll(List.of(server, broker, store));
    System.out.println("stall: stopped in " + stopMs + " ms beside a purge");
    // The HTTP server's wait for the purge's answer, then the writer's for its batch.
    assertThat(stopMs).isLessThan(5000 + 5000 + ANSWER_MS);
  }

  /**
   * Opens every writer lane's connection on queue q, the purges' own lane too, so that what the
   * stall meets is a statement, not a login.
   */
  private void connectEveryLane() {
    assertThat(api.post("/v1/queues/q/purge", "").status()).isEqualTo(200);
    for (int i = 0; i < 3; i++) {
      assertThat(publish("m-" + i)).isNotNull();
    }
    for (int i = 0; i < 4; i++) {
      assertThat(api.post("/v1/queues/q/receive", "{\"max\": 1}").status()).isEqualTo(200);
    }
  }

  @Test
  void writesAreAnsweredWithinTheStallTimeoutWhileAPurgeWaitsItOut() {
    assertThat(api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
    assertThat(api.put("/v1/queues/other", "{}").status()).isEqualTo(201);
    connectEveryLane();
    proxy.freeze();
    CompletableFuture<Reply> purge =
        CompletableFuture.supplyAsync(() -> api.post("/v1/queues/q/purge", ""), ASYNC);
    LockSupport.parkNanos(200_000_000);
    // Publishes one after another while the purge waits: while one waits on its statement, the
    // next would be given the purge's lane, and would wait as long as the purge.
    List<CompletableFuture<Timed>> publishes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String body = "{\"body\": \"d-" + i + "\"}";
      publishes.add(CompletableFuture.supplyAsync(
          () -> timed(() -> api.post("/v1/queues/other/messages", body)), ASYNC));
      LockSupport.parkNanos(100_000_000);
    }
    SoftAssertions soft = new SoftAssertions();
    for (int i = 0; i < publishes.size(); i++) {
      Timed t = await(publishes.get(i));
      System.out.println("stall: publish " + i + " beside a purge " + t.describe());
      soft.assertThat(t.reply()).as("publish " + i + " answered").isNotNull();
      if (t.reply() != null) {
        soft.assertThat(t.millis()).as("publish " + i + " within the stall bound")
            .isLessThan(ANSWER_MS);
        soft.assertThat(t.reply().status()).as("publish " + i + " status").isEqualTo(503);
      }
    }
    soft.assertAll();
    assertThat(purge).isNotDone();
    proxy.thaw();
    Reply r = purge.join();
    assertThat(r.status()).as(r.text()).isEqualTo(200);
  }
}
