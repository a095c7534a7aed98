package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.http.Api.Reply;
import dev.wharf.store.postgres.PostgresSettings;
import dev.wharf.store.postgres.PostgresStore;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server on PostgreSQL whose database goes away (through a relay the test cuts, the database
 * itself untouched) and comes back: every request is answered at once and plainly while it is
 * away, and everything works again by itself once it is back, with no answered publish lost.
 */
class PgOutageOverHttpTest {
  /** Well under the read pool's 5 s wait for a connection, which no answer may take. */
  private static final long FAST_MS = 1000;

  private static final Duration BOUND = Duration.ofSeconds(20);

  private final MutableClock clock = MutableClock.atEpochDay();
  private final List<AutoCloseable> open = new ArrayList<>();
  private String schema;
  private TcpProxy proxy;
  private Api api;

  @BeforeEach
  void start() {
    PostgresSettings direct = TestDatabase.freshSchema(6);
    schema = TestDatabase.schemaOf(direct);
    TestDatabase.Relayed relayed = TestDatabase.throughRelay(direct);
    proxy = relayed.proxy();
    open.add(proxy);
    String url = relayed.url();
    PostgresStore store = new PostgresStore(
        new PostgresSettings(url, direct.user(), direct.password(), direct.poolSize()));
    store.start();
    open.add(store);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Broker broker = new Broker(store, clock, BrokerOptions.defaults(), registry);
    broker.startWithoutReapers();
    open.add(broker);
    HttpSettings http =
        new HttpSettings("127.0.0.1", 0, 1 << 20, null, false, Duration.ofSeconds(1));
    WharfHttp server = WharfHttp.start(broker, registry, http);
    open.add(server);
    api = new Api("127.0.0.1", server.port());
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    TestDatabase.dropSchema(schema);
  }

  private record Timed(Reply reply, long millis) {}

  private static Timed timed(Supplier<Reply> call) {
    long t0 = System.nanoTime();
    Reply r = call.get();
    return new Timed(r, (System.nanoTime() - t0) / 1_000_000);
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

  @Test
  void everyRequestIsAnsweredAtOnceWhileTheDatabaseIsAwayAndAllWorksOnceItIsBack()
      throws Exception {
    assertThat(api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
    assertThat(api.get("/readyz").status()).isEqualTo(200);
    Set<String> answered = ConcurrentHashMap.newKeySet();
    for (int i = 0; i < 3; i++) {
      answered.add(publish("before-" + i));
    }
    Reply first = api.post("/v1/queues/q/receive", "{\"max\": 1}");
    String acked = first.json().at("/messages/0/lease_id").asText();
    assertThat(api.post("/v1/queues/q/ack", "{\"lease_id\": \"" + acked + "\"}").status())
        .isEqualTo(200);
    answered.remove(first.json().at("/messages/0/body").asText());
    // A lease held through the outage, settled after it.
    Reply second = api.post("/v1/queues/q/receive", "{\"max\": 1}");
    String heldLease = second.json().at("/messages/0/lease_id").asText();
    answered.remove(second.json().at("/messages/0/body").asText());

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
    });
    // A long-poll parked on another queue when the database goes away.
    assertThat(api.put("/v1/queues/idle", "{}").status()).isEqualTo(201);
    CompletableFuture<Timed> parked = CompletableFuture.supplyAsync(
        () -> timed(() -> api.post("/v1/queues/idle/receive", "{\"wait\": \"3s\"}")));
    LockSupport.parkNanos(300_000_000);

    proxy.cut();
    long cutAt = System.nanoTime();
    Timed firstReady = timed(() -> api.get("/readyz"));
    eventually("readiness to fail", () -> api.get("/readyz").status() == 503);
    long knownAfter = (System.nanoTime() - cutAt) / 1_000_000;

    Map<String, Timed> during = new LinkedHashMap<>();
    during.put("readyz", timed(() -> api.get("/readyz")));
    during.put("healthz", timed(() -> api.get("/healthz")));
    during.put("publish", timed(() -> api.post("/v1/queues/q/messages", "{\"body\": \"out\"}")));
    during.put("receive", timed(() -> api.post("/v1/queues/q/receive", "{}")));
    during.put("receive-wait",
        timed(() -> api.post("/v1/queues/q/receive", "{\"wait\": \"2s\"}")));
    during.put("ack", timed(() -> api.post("/v1/queues/q/ack",
        "{\"lease_id\": \"" + heldLease + "\"}")));
    during.put("browse", timed(() -> api.get("/v1/queues/q/messages")));
    during.put("queue", timed(() -> api.get("/v1/queues/q")));
    during.put("queues", timed(() -> api.get("/v1/queues")));
    during.put("readyz-again", timed(() -> api.get("/readyz")));
    Timed parkedAnswer = parked.get(30, TimeUnit.SECONDS);

    System.out.println("outage: first /readyz " + firstReady.millis() + " ms "
        + firstReady.reply().status() + "; known unready after " + knownAfter + " ms");
    System.out.println("outage: parked long-poll (wait 3s) " + parkedAnswer.millis() + " ms "
        + parkedAnswer.reply().status() + " " + parkedAnswer.reply().text());
    during.forEach((what, t) -> System.out.println("outage: " + what + " " + t.millis() + " ms "
        + t.reply().status() + " " + t.reply().text().strip() + " Retry-After="
        + t.reply().raw().headers().firstValue("Retry-After").orElse("-")));

    SoftAssertions soft = new SoftAssertions();
    during.forEach((what, t) -> {
      soft.assertThat(t.millis()).as(what + " answered at once").isLessThan(FAST_MS);
      if (!what.equals("healthz")) {
        soft.assertThat(t.reply().status()).as(what + " status").isEqualTo(503);
        soft.assertThat(t.reply().code()).as(what + " code").isEqualTo("unavailable");
        soft.assertThat(t.reply().raw().headers().firstValue("Retry-After"))
            .as(what + " Retry-After").isPresent();
      }
    });
    // Alive: a restart would not bring the database back.
    soft.assertThat(during.get("healthz").reply().status()).isEqualTo(200);
    // The parked long-poll is answered within its wait, plainly: empty, or unavailable.
    soft.assertThat(parkedAnswer.millis()).isLessThan(3000 + FAST_MS);
    soft.assertThat(parkedAnswer.reply().status()).isIn(200, 503);
    soft.assertAll();

    proxy.restore();
    long restoredAt = System.nanoTime();
    eventually("readiness to come back", () -> api.get("/readyz").status() == 200);
    System.out.println("outage: ready again " + (System.nanoTime() - restoredAt) / 1_000_000
        + " ms after the database came back");
    stopPublishing.set(true);
    publisher.get(30, TimeUnit.SECONDS);
    // Everything works again, without a restart.
    assertThat(api.get("/v1/queues/q/messages").status()).isEqualTo(200);
    assertThat(api.get("/v1/queues").status()).isEqualTo(200);
    answered.add(publish("after"));
    // The lease held through the outage still settles (its 30 s have not run out).
    assertThat(api.post("/v1/queues/q/ack", "{\"lease_id\": \"" + heldLease + "\"}").json()
        .at("/results/0/outcome").asText()).isEqualTo("acked");
    Set<String> got = new HashSet<>();
    for (int round = 0; round < 1000; round++) {
      Reply r = api.post("/v1/queues/q/receive", "{\"max\": 100}");
      assertThat(r.status()).isEqualTo(200);
      if (r.json().at("/messages").isEmpty()) {
        break;
      }
      for (var msg : r.json().at("/messages")) {
        got.add(msg.at("/body").asText());
      }
    }
    // Every publish answered 2xx is there (one whose answer was lost may be there too).
    assertThat(answered).doesNotContainNull();
    assertThat(got).containsAll(answered);
    assertThat(answered).hasSizeGreaterThan(4);
  }
}
