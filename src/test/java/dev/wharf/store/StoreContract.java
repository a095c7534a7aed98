package dev.wharf.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link Store} backend must show, driven through the core {@link Broker} so
 * that the state machine of DESIGN §3 is what is checked. A backend's test is a short subclass
 * that says how to make a fresh database and how to open a store on it.
 */
public abstract class StoreContract {
  protected MutableClock clock;
  protected Store store;
  protected Broker broker;
  protected SimpleMeterRegistry registry;

  /** Prepares an empty database for the current test. */
  protected abstract void freshDatabase() throws Exception;

  /** Opens a new, unstarted store instance over the current test's database. */
  protected abstract Store openStore();

  @BeforeEach
  void setUp() throws Exception {
    clock = MutableClock.atEpochDay();
    freshDatabase();
    boot();
  }

  @AfterEach
  void tearDown() {
    broker.close();
    store.close();
  }

  /** Simulates a restart: a new store and broker over the same database. */
  protected void restart() {
    broker.close();
    store.close();
    boot();
  }

  private void boot() {
    store = openStore();
    store.start();
    registry = new SimpleMeterRegistry();
    broker = new Broker(store, clock, BrokerOptions.defaults(), registry);
    broker.startWithoutReapers();
  }

  protected void queue(String name, Integer maxAttempts, Optional<String> dlq) {
    broker.putQueue(
        name, new QueueSettingsPatch(null, null, maxAttempts, dlq, null, null, null));
  }

  protected String publish(String queue, String json) {
    return broker.publish(queue, List.of(Publish.json(json))).get(0).id();
  }

  protected List<Delivery> receive(String queue, int max) {
    return broker.receive(queue, max, Duration.ZERO, null);
  }

  protected static String body(Delivery d) {
    return new String(d.message().payload(), StandardCharsets.UTF_8);
  }

  private Outcome one(List<LeaseOutcome> outcomes) {
    assertThat(outcomes).hasSize(1);
    return outcomes.get(0).outcome();
  }

  private void reap() {
    broker.reapers().runOnce(clock.instant());
  }

  @Test
  void publishReceiveAckRemovesTheMessage() {
    queue("q", null, null);
    String id = publish("q", "{\"n\":1}");
    List<Delivery> got = receive("q", 10);
    assertThat(got).hasSize(1);
    Delivery d = got.get(0);
    assertThat(d.message().id()).isEqualTo(id);
    assertThat(d.message().attempt()).isEqualTo(1);
    assertThat(body(d)).isEqualTo("{\"n\":1}");
    assertThat(d.leaseUntil()).isEqualTo(clock.instant().plusSeconds(30));
    assertThat(broker.stats("q").counts().leased()).isEqualTo(1);
    assertThat(one(broker.settle().ack("q", List.of(d.leaseId()), false))).isEqualTo(Outcome.ACKED);
    assertThat(receive("q", 10)).isEmpty();
    assertThat(broker.stats("q").counts().depth()).isZero();
    assertThatThrownBy(() -> broker.message("q", id))
        .isInstanceOf(BrokerException.MessageNotFound.class);
  }

  @Test
  void deliversOldestVisibleFirstThenPublishOrder() {
    queue("q", null, null);
    String a = publish("q", "1");
    String b = broker.publish("q", List.of(new Publish(ContentType.JSON, "2".getBytes(), null,
        null, Duration.ofSeconds(5), null, null, null))).get(0).id();
    String c = publish("q", "3");
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(a, c);
    clock.advance(Duration.ofSeconds(5));
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(b);
  }

  @Test
  void aBatchKeepsItsOrderAndEveryMessageWhateverItsSize() {
    queue("q", null, null);
    // 77 plain messages (written in runs of 64, 8, 4 and 1 rows), then a batch mixing in one
    // with headers, which takes the row-at-a-time path.
    List<Publish> plain = new ArrayList<>();
    for (int i = 0; i < 77; i++) {
      plain.add(Publish.json("" + i));
    }
    List<String> ids = new ArrayList<>();
    broker.publish("q", plain).forEach(r -> ids.add(r.id()));
    List<Publish> mixed =
        List.of(
            Publish.json("77"),
            new Publish(
                ContentType.JSON, "78".getBytes(), Map.of("h", "v"), null, null, null, null,
                null));
    broker.publish("q", mixed).forEach(r -> ids.add(r.id()));
    assertThat(ids).hasSize(79).doesNotHaveDuplicates();
    assertThat(broker.stats("q").counts().ready()).isEqualTo(79);
    List<Delivery> got = new ArrayList<>(receive("q", 100));
    assertThat(got).extracting(d -> d.message().id()).containsExactlyElementsOf(ids);
    for (int i = 0; i < got.size(); i++) {
      assertThat(body(got.get(i))).isEqualTo("" + i);
    }
    assertThat(got.get(78).message().headers()).containsEntry("h", "v");
    assertThat(broker.stats("q").counts().leased()).isEqualTo(79);
  }

  @Test
  void aDeliveryCarriesEveryFieldOfItsMessage() {
    queue("q", null, null);
    Instant publishedAt = clock.instant();
    Publish p =
        new Publish(ContentType.TEXT, "hello".getBytes(StandardCharsets.UTF_8),
            Map.of("h", "v"), "{\"m\":1}", null, Duration.ofHours(1), null, "order-7");
    String id = broker.publish("q", List.of(p)).get(0).id();
    clock.advance(Duration.ofSeconds(2));

    Message m = receive("q", 1).get(0).message();

    assertThat(m.id()).isEqualTo(id);
    assertThat(m.queue()).isEqualTo("q");
    assertThat(m.state()).isEqualTo(MessageState.LEASED);
    assertThat(m.contentType()).isEqualTo(ContentType.TEXT);
    assertThat(new String(m.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");
    assertThat(m.headers()).isEqualTo(Map.of("h", "v"));
    assertThat(m.metadata()).isEqualTo("{\"m\":1}");
    assertThat(m.attempt()).isEqualTo(1);
    assertThat(m.publishedAt()).isEqualTo(publishedAt);
    assertThat(m.visibleAt()).isEqualTo(publishedAt);
    assertThat(m.leaseUntil()).isEqualTo(clock.instant().plusSeconds(30));
    assertThat(m.expiresAt()).isEqualTo(publishedAt.plus(Duration.ofHours(1)));
    assertThat(m.key()).isEqualTo("order-7");
    assertThat(m.originalQueue()).isNull();
    assertThat(m.deadReason()).isNull();
    assertThat(m.diedAt()).isNull();
  }

  @Test
  void batchReceiveTakesAtMostMax() {
    queue("q", null, null);
    List<Publish> many = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      many.add(Publish.json("" + i));
    }
    assertThat(broker.publish("q", many)).hasSize(25);
    assertThat(receive("q", 10)).hasSize(10);
    assertThat(receive("q", 100)).hasSize(15);
    assertThatThrownBy(() -> receive("q", 0)).isInstanceOf(BrokerException.Invalid.class);
    assertThatThrownBy(() -> receive("q", 101)).isInstanceOf(BrokerException.Invalid.class);
  }

  @Test
  void aClaimStopsAtItsByteBoundButAlwaysTakesOneMessage() {
    queue("q", null, null);
    List<Publish> small = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      // 400 bytes each: a JSON string of 398 characters and its quotes.
      small.add(Publish.json("\"" + (char) ('a' + i) + "x".repeat(397) + "\""));
    }
    broker.publish("q", small);
    broker.publish("q", List.of(Publish.json("\"big" + "x".repeat(2995) + "\"")));
    Instant now = clock.instant();
    Instant until = now.plusSeconds(30);

    List<Delivery> first = store.messagesClaim(new ClaimRequest("q", 10, now, until, 1000));
    assertThat(first).extracting(d -> body(d).charAt(1)).containsExactly('a', 'b');
    assertThat(store.messagesClaim(new ClaimRequest("q", 1, now, until, 1000)))
        .extracting(d -> body(d).charAt(1)).containsExactly('c');
    // The next would carry 3,800 bytes: the claim stops before it.
    assertThat(store.messagesClaim(new ClaimRequest("q", 10, now, until, 1000)))
        .extracting(d -> body(d).charAt(1)).containsExactly('d', 'e');
    // Larger than the bound by itself: delivered, alone.
    List<Delivery> big = store.messagesClaim(new ClaimRequest("q", 10, now, until, 1000));
    assertThat(big).hasSize(1);
    assertThat(body(big.get(0))).startsWith("\"big").hasSize(3000);
    assertThat(store.messagesClaim(new ClaimRequest("q", 10, now, until, 1000))).isEmpty();
    assertThat(store.queueCounts("q", now).leased()).isEqualTo(6);
  }

  @Test
  void leaseExpiryMakesTheMessageVisibleAgainAndCountsAttempts() {
    queue("q", 3, null);
    publish("q", "1");
    Delivery first = receive("q", 1).get(0);
    clock.advance(Duration.ofSeconds(29));
    reap();
    assertThat(receive("q", 1)).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(one(broker.settle().ack("q", List.of(first.leaseId()), false)))
        .isEqualTo(Outcome.LEASE_EXPIRED);
    reap();
    Delivery second = receive("q", 1).get(0);
    assertThat(second.message().attempt()).isEqualTo(2);
    assertThat(one(broker.settle().ack("q", List.of(first.leaseId()), false)))
        .isEqualTo(Outcome.LEASE_NOT_FOUND);
  }

  @Test
  void leaseExpiryPastMaxAttemptsMovesToTheDlq() {
    queue("q", 2, null);
    String id = publish("q", "1");
    for (int i = 0; i < 2; i++) {
      assertThat(receive("q", 1)).hasSize(1);
      clock.advance(Duration.ofSeconds(31));
      reap();
    }
    assertThat(receive("q", 1)).isEmpty();
    assertThat(broker.stats("q").dead()).isEqualTo(1);
    List<Message> dead = broker.deadLetters("q", 0, 10);
    assertThat(dead).hasSize(1);
    Message m = dead.get(0);
    assertThat(m.id()).isEqualTo(id);
    assertThat(m.queue()).isEqualTo("q.dlq");
    assertThat(m.originalQueue()).isEqualTo("q");
    assertThat(m.attempt()).isZero();
    assertThat(m.deadReason()).isEqualTo("max_attempts_exceeded");
    assertThat(m.diedAt()).isEqualTo(clock.instant());
    // A DLQ is a queue like any other: it can be consumed.
    Delivery fromDlq = receive("q.dlq", 1).get(0);
    assertThat(fromDlq.message().id()).isEqualTo(id);
    assertThat(fromDlq.message().queue()).isEqualTo("q.dlq");
    assertThat(fromDlq.message().originalQueue()).isEqualTo("q");
    assertThat(fromDlq.message().deadReason()).isEqualTo("max_attempts_exceeded");
    assertThat(fromDlq.message().diedAt()).isEqualTo(clock.instant());
  }

  @Test
  void nackRetriesAfterDelayUntilAttemptsAreUsedUp() {
    queue("q", 2, null);
    publish("q", "1");
    Delivery d1 = receive("q", 1).get(0);
    assertThat(one(broker.settle().nack("q", List.of(d1.leaseId()), Duration.ofSeconds(10))))
        .isEqualTo(Outcome.RETRIED);
    assertThat(receive("q", 1)).isEmpty();
    assertThat(broker.stats("q").counts().delayed()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(10));
    Delivery d2 = receive("q", 1).get(0);
    assertThat(d2.message().attempt()).isEqualTo(2);
    assertThat(one(broker.settle().nack("q", List.of(d2.leaseId()), Duration.ZERO)))
        .isEqualTo(Outcome.DEAD);
    assertThat(broker.stats("q").dead()).isEqualTo(1);
    assertThat(broker.stats("q").counts().depth()).isZero();
  }

  @Test
  void deadWithReasonGoesStraightToTheDlqOrIsDroppedWithoutOne() {
    queue("q", null, null);
    queue("nodlq", null, Optional.empty());
    publish("q", "1");
    publish("nodlq", "2");
    Delivery d = receive("q", 1).get(0);
    assertThat(one(broker.settle().dead("q", List.of(d.leaseId()), "bad payload")))
        .isEqualTo(Outcome.DEAD);
    assertThat(broker.deadLetters("q", 0, 10).get(0).deadReason()).isEqualTo("bad payload");
    Delivery e = receive("nodlq", 1).get(0);
    assertThat(one(broker.settle().dead("nodlq", List.of(e.leaseId()), "x")))
        .isEqualTo(Outcome.DROPPED);
    assertThat(broker.stats("nodlq").counts().depth()).isZero();
    assertThat(broker.stats("nodlq").dropped()).isEqualTo(1);
  }

  @Test
  void deferDoesNotCountTheAttemptAndReleaseIsImmediate() {
    queue("q", 1, null);
    publish("q", "1");
    Delivery d = receive("q", 1).get(0);
    assertThat(one(broker.settle().defer("q", List.of(d.leaseId()), Duration.ofSeconds(5))))
        .isEqualTo(Outcome.DEFERRED);
    clock.advance(Duration.ofSeconds(5));
    Delivery again = receive("q", 1).get(0);
    assertThat(again.message().attempt()).isEqualTo(1);
    assertThat(one(broker.settle().release("q", List.of(again.leaseId()))))
        .isEqualTo(Outcome.RELEASED);
    Delivery third = receive("q", 1).get(0);
    assertThat(third.message().attempt()).isEqualTo(1);
  }

  @Test
  void extendMovesTheLeaseLaterCappedByTheQueueMax() {
    broker.putQueue("q", new QueueSettingsPatch(Duration.ofSeconds(30), Duration.ofMinutes(2),
        null, null, null, null, null));
    publish("q", "1");
    Delivery d = receive("q", 1).get(0);
    clock.advance(Duration.ofSeconds(20));
    List<LeaseOutcome> ext = broker.settle().extend("q", List.of(d.leaseId()),
        Duration.ofSeconds(60));
    assertThat(ext.get(0).outcome()).isEqualTo(Outcome.EXTENDED);
    assertThat(ext.get(0).leaseUntil()).isEqualTo(clock.instant().plusSeconds(60));
    clock.advance(Duration.ofSeconds(59));
    reap();
    assertThat(receive("q", 1)).isEmpty();
    assertThatThrownBy(() -> broker.settle().extend("q", List.of(d.leaseId()),
        Duration.ofMinutes(3))).isInstanceOf(BrokerException.Invalid.class);
    assertThat(one(broker.settle().ack("q", List.of(d.leaseId()), false)))
        .isEqualTo(Outcome.ACKED);
  }

  @Test
  void repeatedAckIsASuccessAndUnknownLeasesAreConflicts() {
    queue("q", null, null);
    publish("q", "1");
    Delivery d = receive("q", 1).get(0);
    assertThat(one(broker.settle().ack("q", List.of(d.leaseId()), false)))
        .isEqualTo(Outcome.ACKED);
    assertThat(one(broker.settle().ack("q", List.of(d.leaseId()), false)))
        .isEqualTo(Outcome.ACKED);
    List<LeaseOutcome> mixed =
        broker.settle().ack("q", List.of("zz.0123456789abcdef", "nonsense", d.leaseId()), false);
    assertThat(mixed).extracting(LeaseOutcome::outcome)
        .containsExactly(Outcome.LEASE_NOT_FOUND, Outcome.LEASE_NOT_FOUND, Outcome.ACKED);
    clock.advance(Duration.ofMinutes(6));
    assertThat(one(broker.settle().ack("q", List.of(d.leaseId()), false)))
        .isEqualTo(Outcome.LEASE_NOT_FOUND);
  }

  @Test
  void oneRequestNamingAMessageTwiceSettlesItOnce() {
    queue("q", null, null);
    publish("q", "1");
    publish("q", "2");
    List<Delivery> first = receive("q", 2);
    clock.advance(Duration.ofSeconds(31));
    reap();
    List<Delivery> second = receive("q", 2);
    // Strict: the stale lease is refused, the current one acks; the message goes once.
    assertThat(broker.settle().ack(
            "q", List.of(first.get(0).leaseId(), second.get(0).leaseId()), false))
        .extracting(LeaseOutcome::outcome)
        .containsExactly(Outcome.LEASE_NOT_FOUND, Outcome.ACKED);
    // Permissive: both name a message that exists (or just went), both are acks.
    assertThat(broker.settle().ack(
            "q", List.of(first.get(1).leaseId(), second.get(1).leaseId()), true))
        .extracting(LeaseOutcome::outcome)
        .containsExactly(Outcome.ACKED, Outcome.ACKED);
    assertThat(broker.stats("q").counts().depth()).isZero();
  }

  @Test
  void leaseOfAnotherQueueIsNotFound() {
    queue("a", null, null);
    queue("b", null, null);
    publish("a", "1");
    Delivery d = receive("a", 1).get(0);
    assertThat(one(broker.settle().ack("b", List.of(d.leaseId()), false)))
        .isEqualTo(Outcome.LEASE_NOT_FOUND);
  }

  @Test
  void permissiveAckAcceptsAStaleLeaseWhileTheMessageExists() {
    queue("q", null, null);
    publish("q", "1");
    Delivery first = receive("q", 1).get(0);
    clock.advance(Duration.ofSeconds(31));
    reap();
    Delivery second = receive("q", 1).get(0);
    assertThat(one(broker.settle().ack("q", List.of(first.leaseId()), true)))
        .isEqualTo(Outcome.ACKED);
    assertThat(broker.stats("q").counts().depth()).isZero();
    assertThat(one(broker.settle().ack("q", List.of(second.leaseId()), true)))
        .isEqualTo(Outcome.ACKED);
  }

  @Test
  void idempotencyKeyDeduplicatesWithinTheWindow() {
    queue("q", null, null);
    Publish p = new Publish(ContentType.JSON, "1".getBytes(), null, null, null, null, "evt-1",
        null);
    PublishResult first = broker.publish("q", List.of(p)).get(0);
    PublishResult again = broker.publish("q", List.of(p)).get(0);
    assertThat(first.duplicate()).isFalse();
    assertThat(again.duplicate()).isTrue();
    assertThat(again.id()).isEqualTo(first.id());
    assertThat(broker.stats("q").counts().depth()).isEqualTo(1);
    // The key outlives the message: consuming it does not reopen the window.
    broker.settle().ack("q", List.of(receive("q", 1).get(0).leaseId()), false);
    assertThat(broker.publish("q", List.of(p)).get(0).duplicate()).isTrue();
    clock.advance(Duration.ofHours(24));
    reap();
    assertThat(broker.publish("q", List.of(p)).get(0).duplicate()).isFalse();
  }

  @Test
  void keyUpsertReplacesAReadyMessageButNeverALeasedOne() {
    queue("q", null, null);
    Publish v1 = new Publish(ContentType.JSON, "1".getBytes(), Map.of("h", "1"), null, null,
        null, null, "order-42");
    Publish v2 = new Publish(ContentType.JSON, "2".getBytes(), Map.of("h", "2"), "{\"m\":2}",
        null, null, null, "order-42");
    PublishResult r1 = broker.publish("q", List.of(v1)).get(0);
    PublishResult r2 = broker.publish("q", List.of(v2)).get(0);
    assertThat(r2.replaced()).isTrue();
    assertThat(r2.id()).isEqualTo(r1.id());
    Delivery d = receive("q", 1).get(0);
    assertThat(body(d)).isEqualTo("2");
    assertThat(d.message().headers()).containsEntry("h", "2");
    assertThat(d.message().metadata()).isEqualTo("{\"m\":2}");
    PublishResult r3 = broker.publish("q", List.of(v1)).get(0);
    assertThat(r3.replaced()).isFalse();
    assertThat(r3.id()).isNotEqualTo(r1.id());
    assertThat(broker.stats("q").counts().depth()).isEqualTo(2);
    // Two messages came in; the replacement added none.
    assertThat(broker.stats("q").published()).isEqualTo(2);
  }

  private static Publish keyed(String body, String key) {
    return new Publish(ContentType.JSON, body.getBytes(StandardCharsets.UTF_8), null, null, null,
        null, null, key);
  }

  /** Publishes {@code body} with key "k", expecting a new message (not a replacement). */
  private String publishNewKeyed(String body) {
    PublishResult r = broker.publish("q", List.of(keyed(body, "k"))).get(0);
    assertThat(r.replaced()).isFalse();
    return r.id();
  }

  /** This process's count of {@code wharf_messages_replaced} for the queue. */
  private double replaced(String queue) {
    return registry.get("wharf_messages_replaced").tag("queue", queue).counter().count();
  }

  /** Every message of the queue, as {id: body}, written-back leases and all. */
  private Map<String, String> bodies(String queue) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (Message m : broker.browse(queue, null, null, 0, 100)) {
      out.put(m.id(), new String(m.payload(), StandardCharsets.UTF_8));
    }
    return out;
  }

  /**
   * A leased message with key "k" and a newer one made beside it by a publish with that key: the
   * lease of v1 ({@code d1}), v2's id.
   */
  private record Superseded(Delivery d1, String v2) {}

  private Superseded leasedThenSuperseded() {
    queue("q", null, null);
    String v1 = publishNewKeyed("1");
    Delivery d1 = receive("q", 1).get(0);
    assertThat(d1.message().id()).isEqualTo(v1);
    String v2 = publishNewKeyed("2");
    assertThat(v2).isNotEqualTo(v1);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 1, 0);
    return new Superseded(d1, v2);
  }

  @Test
  void aSupersededMessageNackedIsDeletedAndOnlyTheNewerIsDelivered() {
    Superseded s = leasedThenSuperseded();
    // The consumer is answered as for any nack.
    assertThat(one(broker.settle().nack("q", List.of(s.d1().leaseId()), Duration.ZERO)))
        .isEqualTo(Outcome.RETRIED);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 0, 0);
    assertThat(bodies("q")).containsExactly(Map.entry(s.v2(), "2"));
    assertThat(replaced("q")).isEqualTo(1.0);
    assertThat(broker.stats("q").nacked()).isZero();
    List<Delivery> next = receive("q", 10);
    assertThat(next).extracting(d -> d.message().id()).containsExactly(s.v2());
    broker.settle().ack("q", List.of(next.get(0).leaseId()), false);
    QueueStatsAssert.of(broker.stats("q").counts()).is(0, 0, 0, 0);
    assertThat(receive("q", 10)).isEmpty();
    restart();
    QueueStatsAssert.of(broker.stats("q").counts()).is(0, 0, 0, 0);
  }

  @Test
  void aSupersededMessageWhoseLeaseExpiresIsDeleted() {
    Superseded s = leasedThenSuperseded();
    clock.advance(Duration.ofSeconds(31));
    reap();
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 0, 0);
    assertThat(replaced("q")).isEqualTo(1.0);
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(s.v2());
    assertThat(receive("q", 10)).isEmpty();
    // Its lease is gone with it.
    assertThat(one(broker.settle().ack("q", List.of(s.d1().leaseId()), false)))
        .isEqualTo(Outcome.LEASE_NOT_FOUND);
  }

  @Test
  void aSupersededMessageNackedWithADelayOrDeferredIsDeleted() {
    Superseded s = leasedThenSuperseded();
    assertThat(one(broker.settle().nack("q", List.of(s.d1().leaseId()), Duration.ofSeconds(10))))
        .isEqualTo(Outcome.RETRIED);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 0, 0);
    clock.advance(Duration.ofSeconds(10));
    List<Delivery> v2 = receive("q", 10);
    assertThat(v2).extracting(d -> d.message().id()).containsExactly(s.v2());

    // v2 is leased now: a third publish supersedes it, and v2's defer deletes it.
    String v3 = publishNewKeyed("3");
    assertThat(one(broker.settle().defer("q", List.of(v2.get(0).leaseId()), Duration.ofSeconds(5))))
        .isEqualTo(Outcome.DEFERRED);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 0, 0);
    clock.advance(Duration.ofSeconds(5));
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(v3);
    assertThat(replaced("q")).isEqualTo(2.0);
    assertThat(broker.stats("q").nacked()).isZero();
  }

  @Test
  void aSupersededMessageReleasedIsDeleted() {
    Superseded s = leasedThenSuperseded();
    assertThat(one(broker.settle().release("q", List.of(s.d1().leaseId()))))
        .isEqualTo(Outcome.RELEASED);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 0, 0);
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(s.v2());
    assertThat(replaced("q")).isEqualTo(1.0);
  }

  @Test
  void everyLeasedVersionOfTheKeyIsSupersededAndStaysSoAcrossARestart() {
    Superseded s = leasedThenSuperseded();
    Delivery d2 = receive("q", 1).get(0);
    assertThat(d2.message().id()).isEqualTo(s.v2());
    String v3 = publishNewKeyed("3");
    // A ready version is replaced in place as before; the leased ones stay marked.
    PublishResult v4 = broker.publish("q", List.of(keyed("4", "k"))).get(0);
    assertThat(v4.replaced()).isTrue();
    assertThat(v4.id()).isEqualTo(v3);
    assertThat(replaced("q")).isEqualTo(1.0);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 2, 0);
    restart();
    assertThat(broker.settle().nack("q", List.of(s.d1().leaseId(), d2.leaseId()), Duration.ZERO))
        .extracting(LeaseOutcome::outcome)
        .containsExactly(Outcome.RETRIED, Outcome.RETRIED);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 0, 0);
    // Counted by the restarted process alone: the two deleted.
    assertThat(replaced("q")).isEqualTo(2.0);
    List<Delivery> last = receive("q", 10);
    assertThat(last).extracting(StoreContract::body).containsExactly("4");
    assertThat(last).extracting(d -> d.message().id()).containsExactly(v3);
  }

  @Test
  void theNewerAckedFirstTheSupersededNeverComesBack() {
    Superseded s = leasedThenSuperseded();
    Delivery d2 = receive("q", 1).get(0);
    assertThat(d2.message().id()).isEqualTo(s.v2());
    assertThat(one(broker.settle().ack("q", List.of(d2.leaseId()), false)))
        .isEqualTo(Outcome.ACKED);
    // Extending it works as for any lease.
    assertThat(one(broker.settle().extend("q", List.of(s.d1().leaseId()), Duration.ofSeconds(60))))
        .isEqualTo(Outcome.EXTENDED);
    clock.advance(Duration.ofSeconds(31));
    reap();
    QueueStatsAssert.of(broker.stats("q").counts()).is(0, 0, 1, 0);
    assertThat(one(broker.settle().nack("q", List.of(s.d1().leaseId()), Duration.ZERO)))
        .isEqualTo(Outcome.RETRIED);
    assertThat(receive("q", 10)).isEmpty();
    QueueStatsAssert.of(broker.stats("q").counts()).is(0, 0, 0, 0);
    assertThat(broker.browse("q", null, null, 0, 10)).isEmpty();
    assertThat(replaced("q")).isEqualTo(1.0);
  }

  @Test
  void aSupersededMessageAckedIsDoneAndTheNewerIsStillDelivered() {
    Superseded s = leasedThenSuperseded();
    assertThat(one(broker.settle().ack("q", List.of(s.d1().leaseId()), false)))
        .isEqualTo(Outcome.ACKED);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 0, 0);
    assertThat(broker.stats("q").acked()).isEqualTo(1);
    assertThat(replaced("q")).isZero();
    Delivery d2 = receive("q", 10).get(0);
    assertThat(d2.message().id()).isEqualTo(s.v2());
    // Acked, it was no stale version: v2 is superseded all the same once v3 is made.
    String v3 = publishNewKeyed("3");
    broker.settle().nack("q", List.of(d2.leaseId()), Duration.ZERO);
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(v3);
    assertThat(replaced("q")).isEqualTo(1.0);
  }

  @Test
  void aSupersededMessageThatDiesGoesToTheDlqWithoutItsKeyOrMark() {
    Superseded s = leasedThenSuperseded();
    assertThat(one(broker.settle().dead("q", List.of(s.d1().leaseId()), "bad")))
        .isEqualTo(Outcome.DEAD);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 0, 0);
    assertThat(broker.stats("q").dead()).isEqualTo(1);
    Message dead = broker.deadLetters("q", 0, 10).get(0);
    assertThat(dead.id()).isEqualTo(s.d1().message().id());
    assertThat(dead.key()).isNull();
    assertThat(replaced("q")).isZero();
    // The DLQ's consumer nacks it: it is ready again there, as any message would be.
    Delivery inDlq = receive("q.dlq", 1).get(0);
    assertThat(one(broker.settle().nack("q.dlq", List.of(inDlq.leaseId()), Duration.ZERO)))
        .isEqualTo(Outcome.RETRIED);
    assertThat(receive("q.dlq", 1)).extracting(d -> d.message().id())
        .containsExactly(s.d1().message().id());
    QueueStatsAssert.of(broker.stats("q.dlq").counts()).is(0, 0, 1, 0);
    // v2, leased and superseded in turn, is not moved there when its lease runs out.
    Delivery d2 = receive("q", 10).get(0);
    assertThat(d2.message().id()).isEqualTo(s.v2());
    String v3 = publishNewKeyed("3");
    clock.advance(Duration.ofSeconds(31));
    reap();
    assertThat(broker.stats("q").dead()).isEqualTo(1);
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(v3);
  }

  @Test
  void aSupersededMessageOutOfAttemptsDiesWhetherNackedOrExpired() {
    queue("q", 2, null);
    String v1 = publishNewKeyed("1");
    broker.settle().nack("q", List.of(receive("q", 1).get(0).leaseId()), Duration.ZERO);
    Delivery d1 = receive("q", 1).get(0);
    assertThat(d1.message().attempt()).isEqualTo(2);
    String v2 = publishNewKeyed("2");
    Delivery d2 = receive("q", 1).get(0);
    assertThat(d2.message().attempt()).isEqualTo(1);
    String v3 = publishNewKeyed("3");
    broker.settle().nack("q", List.of(receive("q", 1).get(0).leaseId()), Duration.ZERO);
    Delivery d3 = receive("q", 1).get(0);
    assertThat(d3.message().id()).isEqualTo(v3);
    assertThat(d3.message().attempt()).isEqualTo(2);
    String v4 = publishNewKeyed("4");
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 3, 0);

    // Out of attempts, v1 dies on its nack and v3 when its lease runs out; v2 is deleted.
    assertThat(one(broker.settle().nack("q", List.of(d1.leaseId()), Duration.ZERO)))
        .isEqualTo(Outcome.DEAD);
    clock.advance(Duration.ofSeconds(31));
    reap();
    assertThat(broker.deadLetters("q", 0, 10)).extracting(Message::id).containsExactly(v1, v3);
    assertThat(broker.stats("q").dead()).isEqualTo(2);
    assertThat(broker.stats("q").deadLettered()).isEqualTo(2);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 0, 0);
    assertThat(broker.stats("q.dlq").counts().ready()).isEqualTo(2);
    assertThat(replaced("q")).isEqualTo(1.0);
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(v4);
    assertThat(d2.message().id()).isEqualTo(v2);
  }

  /**
   * Two leases on their last attempt, both over and both past their messages' TTLs by the time
   * the reaper looks (a stalled reaper, or a restart): the message whose TTL ran out while it
   * was leased is expired; the one whose lease ended first died then, and went to the DLQ.
   */
  @Test
  void aLeaseReapedLateEndsAsWhicheverCameFirstItsTtlOrItsEnd() {
    queue("q", 1, null);
    String outlived = broker.publish("q", List.of(new Publish(ContentType.JSON, "1".getBytes(),
        null, null, null, Duration.ofSeconds(2), null, null))).get(0).id();
    broker.publish("q", List.of(new Publish(ContentType.JSON, "2".getBytes(), null, null, null,
        Duration.ofSeconds(7), null, null)));
    assertThat(broker.receive("q", 2, Duration.ZERO, Duration.ofSeconds(6))).hasSize(2);
    clock.advance(Duration.ofSeconds(8));
    reap();
    assertThat(broker.message("q", outlived).state()).isEqualTo(MessageState.EXPIRED);
    QueueStatsAssert.of(broker.stats("q").counts()).is(0, 0, 0, 1);
    assertThat(broker.stats("q.dlq").counts().ready()).isEqualTo(1);
    assertThat(broker.stats("q").expired()).isEqualTo(1);
  }

  @Test
  void ttlExpiresMessagesAndTheDeleteReaperRemovesThem() {
    broker.putQueue("q", new QueueSettingsPatch(null, null, null, null, null,
        Optional.of(Duration.ofMinutes(1)), null));
    String id = publish("q", "1");
    clock.advance(Duration.ofMinutes(1));
    assertThat(receive("q", 1)).isEmpty();
    reap();
    assertThat(broker.message("q", id).state()).isEqualTo(MessageState.EXPIRED);
    assertThat(broker.stats("q").counts().expired()).isEqualTo(1);
    assertThat(broker.stats("q").expired()).isEqualTo(1);
    clock.advance(Duration.ofDays(1));
    reap();
    assertThatThrownBy(() -> broker.message("q", id))
        .isInstanceOf(BrokerException.MessageNotFound.class);
    assertThat(broker.stats("q").counts().expired()).isZero();
  }

  @Test
  void deletingAQueueRemovesItsMessagesInEveryStateAndNoOthers() {
    // More ready messages than one deletion chunk, some leased, one expired, and a neighbour.
    broker.putQueue("q", new QueueSettingsPatch(null, null, null, null, null,
        Optional.of(Duration.ofMinutes(1)), null));
    queue("other", null, null);
    byte[] payload = "{}".getBytes(StandardCharsets.UTF_8);
    for (int b = 0; b < 120; b++) {
      List<Publish> batch = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        batch.add(new Publish(ContentType.JSON, payload, null, null, null, null, null, null));
      }
      broker.publish("q", batch);
    }
    String expired = publish("q", "1");
    clock.advance(Duration.ofSeconds(59));
    assertThat(receive("q", 10)).hasSize(10);
    clock.advance(Duration.ofSeconds(1));
    reap();
    assertThat(broker.message("q", expired).state()).isEqualTo(MessageState.EXPIRED);
    String kept = publish("other", "2");
    String keptLeased = publish("other", "3");
    receive("other", 1);

    assertThat(broker.deleteQueue("q")).isTrue();

    queue("q", null, null);
    assertThat(broker.stats("q").counts().depth()).isZero();
    assertThat(broker.stats("q").counts().leased()).isZero();
    assertThat(broker.stats("q").counts().expired()).isZero();
    assertThat(broker.browse("q", null, null, 0, 10)).isEmpty();
    restart();
    assertThat(broker.stats("q").counts().depth()).isZero();
    assertThat(broker.browse("q", null, null, 0, 10)).isEmpty();
    assertThat(broker.browse("other", null, null, 0, 10)).extracting(Message::id)
        .containsExactly(kept, keptLeased);
  }

  @Test
  void redriveMovesDeadMessagesBackOneOrAll() {
    queue("q", null, null);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(publish("q", "" + i));
    }
    for (Delivery d : receive("q", 3)) {
      broker.settle().dead("q", List.of(d.leaseId()), "x");
    }
    assertThat(broker.stats("q").dead()).isEqualTo(3);
    // Ids that name no dead message of the queue are skipped and said so: an unknown one, a live
    // message of the queue, and a message moved back already.
    String live = publish("q", "live");
    assertThat(broker.redrive("q", List.of("nope", ids.get(1), live, "nope")))
        .isEqualTo(new Redriven(1, List.of("nope", live)));
    assertThat(broker.redrive("q", List.of(ids.get(1))))
        .isEqualTo(new Redriven(0, List.of(ids.get(1))));
    List<Delivery> got = receive("q", 10);
    assertThat(got).extracting(d -> d.message().id()).containsExactly(ids.get(1), live);
    Delivery back = got.get(0);
    assertThat(back.message().id()).isEqualTo(ids.get(1));
    assertThat(back.message().attempt()).isEqualTo(1);
    assertThat(back.message().originalQueue()).isNull();
    assertThat(broker.redrive("q", null)).isEqualTo(new Redriven(2, List.of()));
    assertThat(broker.stats("q").dead()).isZero();
    assertThat(receive("q", 10)).hasSize(2);
  }

  /** PostgreSQL refuses a NUL in any text: such an "id" must be not found, not a store failure. */
  @Test
  void textOfNoIdsShapeNamesNoMessage() {
    queue("q", null, null);
    String id = publish("q", "1");
    broker.settle().dead("q", List.of(receive("q", 1).get(0).leaseId()), "x");
    String nul = "a\u0000b";
    String shortId = id.substring(1);
    assertThatThrownBy(() -> broker.message("q", nul))
        .isInstanceOf(BrokerException.MessageNotFound.class);
    assertThatThrownBy(() -> broker.deleteMessage("q", nul + id))
        .isInstanceOf(BrokerException.MessageNotFound.class);
    assertThat(broker.redrive("q", List.of(nul))).isEqualTo(new Redriven(0, List.of(nul)));
    assertThat(broker.redrive("q", List.of(shortId, id, nul)))
        .isEqualTo(new Redriven(1, List.of(shortId, nul)));
    assertThat(broker.message("q", id).state()).isEqualTo(MessageState.READY);
  }

  @Test
  void anIdRepeatedInARedriveMovesItsMessageOnce() {
    queue("q", null, null);
    String id = publish("q", "1");
    String other = publish("q", "2");
    for (Delivery d : receive("q", 2)) {
      broker.settle().dead("q", List.of(d.leaseId()), "x");
    }
    String dlq = broker.settings("q").deadLetterQueue();

    // The store itself, given the id three times: one message moved, counted once.
    assertThat(
            store.messagesRedrive(
                new RedriveRequest(dlq, "q", List.of(id, id, id), clock.instant(), 10)))
        .isEqualTo(new Redriven(1, List.of()));
    assertThat(broker.stats("q").counts().ready()).isEqualTo(1);
    assertThat(broker.stats("q").dead()).isEqualTo(1);
    // And through the broker.
    assertThat(broker.redrive("q", List.of(other, other))).isEqualTo(new Redriven(1, List.of()));
    assertThat(broker.stats("q").counts().ready()).isEqualTo(2);
    assertThat(broker.stats("q").dead()).isZero();
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(id, other);
    assertThat(broker.stats("q").counts().ready()).isZero();
  }

  @Test
  void purgeAndDeleteRemoveMessages() {
    queue("q", null, null);
    String keep = publish("q", "1");
    publish("q", "2");
    receive("q", 1);
    broker.deleteMessage("q", keep);
    assertThatThrownBy(() -> broker.deleteMessage("q", keep))
        .isInstanceOf(BrokerException.MessageNotFound.class);
    publish("q", "3");
    assertThat(broker.purge("q")).isEqualTo(2);
    assertThat(broker.stats("q").counts().depth()).isZero();
  }

  @Test
  void browseFiltersByStateInPublishOrder() {
    queue("q", null, null);
    String a = publish("q", "1");
    String b = publish("q", "2");
    String c = broker.publish("q", List.of(new Publish(ContentType.TEXT, "3".getBytes(), null,
        null, Duration.ofMinutes(1), null, null, null))).get(0).id();
    receive("q", 1);
    assertThat(broker.browse("q", null, null, 0, 10)).extracting(Message::id)
        .containsExactly(a, b, c);
    assertThat(broker.browse("q", MessageState.LEASED, null, 0, 10)).extracting(Message::id)
        .containsExactly(a);
    assertThat(broker.browse("q", MessageState.READY, false, 0, 10)).extracting(Message::id)
        .containsExactly(b);
    assertThat(broker.browse("q", MessageState.READY, true, 0, 10)).extracting(Message::id)
        .containsExactly(c);
    List<Message> page1 = broker.browse("q", null, null, 0, 2);
    assertThat(broker.browse("q", null, null, page1.get(1).seq(), 2)).extracting(Message::id)
        .containsExactly(c);
    assertThat(broker.message("q", c).contentType()).isEqualTo(ContentType.TEXT);
  }

  @Test
  void browseOfReadyPagesInPublishOrderForAQueueLargeOrSmallNextToTheTable() {
    // The SQLite store reads a large queue's ready messages by walking the table and a small
    // one's through the ready index: both must give the same pages.
    queue("big", null, null);
    queue("small", null, null);
    List<String> bigReady = new ArrayList<>();
    List<String> smallReady = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      bigReady.add(publish("big", "" + i));
      if (i % 120 == 0) {
        smallReady.add(publish("small", "" + i));
      }
    }
    String leased = receive("big", 1).get(0).message().id();
    bigReady.remove(leased);
    String delayed = broker.publish("small", List.of(new Publish(ContentType.TEXT, "d".getBytes(),
        null, null, Duration.ofMinutes(1), null, null, null))).get(0).id();
    String smallLast = publish("small", "last");
    smallReady.add(smallLast);
    assertThat(pages("big", null, 70)).isEqualTo(bigReady);
    assertThat(pages("big", false, 70)).isEqualTo(bigReady);
    assertThat(pages("small", false, 2)).isEqualTo(smallReady);
    List<String> smallAll = new ArrayList<>(smallReady);
    smallAll.add(smallAll.size() - 1, delayed);
    assertThat(pages("small", null, 2)).isEqualTo(smallAll);
    assertThat(pages("small", true, 2)).containsExactly(delayed);
  }

  private List<String> pages(String queue, Boolean delayed, int limit) {
    List<String> ids = new ArrayList<>();
    long after = 0;
    while (true) {
      List<Message> page = broker.browse(queue, MessageState.READY, delayed, after, limit);
      page.forEach(m -> ids.add(m.id()));
      if (page.size() < limit) {
        return ids;
      }
      after = page.get(page.size() - 1).seq();
    }
  }

  @Test
  void aWriteIntoAQueueDeletedMeanwhileIsRefusedAndLeavesNothingBehind() {
    // The broker checks a queue exists before it writes; a deletion can land between the check
    // and the write. Deleting through the store alone leaves the broker believing in the queue,
    // as it does in that gap.
    queue("q", null, null);
    publish("q", "1");
    for (Delivery d : receive("q", 1)) {
      broker.settle().dead("q", List.of(d.leaseId()), "x");
    }
    publish("q", "2");
    store.queuesDelete("q");
    assertThatThrownBy(() -> publish("q", "late"))
        .isInstanceOf(BrokerException.QueueNotFound.class);
    List<Publish> two = List.of(Publish.json("3"), Publish.json("4"));
    assertThatThrownBy(() -> broker.publish("q", two))
        .isInstanceOf(BrokerException.QueueNotFound.class);
    assertThatThrownBy(() -> broker.redrive("q", null))
        .isInstanceOf(BrokerException.QueueNotFound.class);
    String dlq = broker.settings("q").deadLetterQueue();
    assertThat(broker.browse(dlq, null, null, 0, 10)).hasSize(1);

    // Made again under the same name, the queue takes writes and holds nothing from before.
    broker.deleteQueue("q");
    queue("q", null, null);
    String fresh = publish("q", "fresh");
    assertThat(broker.browse("q", null, null, 0, 10)).extracting(Message::id)
        .containsExactly(fresh);
    assertThat(broker.stats("q").counts().ready()).isEqualTo(1);
  }

  @Test
  void aDeadMoveIntoADeadLetterQueueDeletedMeanwhileMakesItAgainWithTheMessage() {
    // As above: the store alone deletes the DLQ, as a deletion does between the moment a dead
    // move reads its policy and its write.
    queue("q", 1, null);
    String dlq = broker.settings("q").deadLetterQueue();
    String nacked = publish("q", "1");
    String expired = publish("q", "2");
    List<Delivery> leased = receive("q", 2);
    assertThat(leased).hasSize(2);
    Delivery first = leased.get(0).message().id().equals(nacked) ? leased.get(0) : leased.get(1);

    store.queuesDelete(dlq);
    assertThat(one(broker.settle().dead("q", List.of(first.leaseId()), "x")))
        .isEqualTo(Outcome.DEAD);
    assertThat(store.queuesGet(dlq)).isPresent();
    assertThat(broker.browse(dlq, null, null, 0, 10)).extracting(Message::id)
        .containsExactly(nacked);

    // The same through a lease's expiry past max_attempts.
    store.queuesDelete(dlq);
    clock.advance(Duration.ofSeconds(31));
    reap();
    assertThat(store.queuesGet(dlq)).isPresent();
    assertThat(broker.browse(dlq, null, null, 0, 10)).extracting(Message::id)
        .containsExactly(expired);
    assertThat(broker.stats(dlq).counts().ready()).isEqualTo(1);
    restart();
    assertThat(broker.queueNames()).contains(dlq);
    assertThat(broker.browse(dlq, null, null, 0, 10)).extracting(Message::id)
        .containsExactly(expired);
  }

  @Test
  void readyAgeIsHowLongTheNextMessageHasWaitedSinceItBecameVisible() {
    queue("q", null, null);
    assertThat(broker.stats("q").counts().readySince()).isNull();
    broker.publish("q", List.of(new Publish(ContentType.JSON, "1".getBytes(StandardCharsets.UTF_8),
        Map.of(), null, Duration.ofSeconds(10), null, null, null)));
    clock.advance(Duration.ofSeconds(2));
    publish("q", "2");
    clock.advance(Duration.ofSeconds(3));
    // The delayed one is not visible yet: the wait is the second's, 3 s.
    assertThat(broker.stats("q").counts().readySince()).isEqualTo(clock.instant().minusSeconds(3));
    clock.advance(Duration.ofSeconds(7));
    // Visible since 2 s ago, it waits behind the second (visible 10 s ago), which is claimed first.
    assertThat(broker.stats("q").counts().readySince())
        .isEqualTo(clock.instant().minusSeconds(10));
    Delivery second = receive("q", 1).get(0);
    assertThat(body(second)).isEqualTo("2");
    assertThat(broker.stats("q").counts().readySince()).isEqualTo(clock.instant().minusSeconds(2));
    // A message back from a nack waits from when it is visible again, not from its publish.
    receive("q", 1);
    broker.settle().nack("q", List.of(second.leaseId()), Duration.ZERO);
    clock.advance(Duration.ofSeconds(1));
    assertThat(broker.stats("q").counts().readySince()).isEqualTo(clock.instant().minusSeconds(1));
  }

  @Test
  void aSettingsChangeMergesIntoWhatIsStoredNotIntoThisNodesCopy() {
    queue("q", null, null);
    // Another node rotates the queue's tokens; this broker has not heard of it yet.
    String stored = store.queuesGet("q").orElseThrow().settingsJson();
    String rotated = stored.replace("\"consumer_tokens\":[]", "\"consumer_tokens\":[\"new\"]");
    assertThat(rotated).isNotEqualTo(stored);
    assertThat(store.queuesPutIf(new QueueRecord("q", rotated, null), stored)).isTrue();
    // A write made from the settings as they were is refused.
    assertThat(store.queuesPutIf(new QueueRecord("q", stored, null), stored)).isFalse();
    assertThat(store.queuesPutIf(new QueueRecord("q", stored, null), null)).isFalse();

    assertThat(broker.putQueue("q", new QueueSettingsPatch(null, null, 9, null, null, null, null)))
        .isFalse();
    assertThat(broker.settings("q").maxAttempts()).isEqualTo(9);
    assertThat(broker.settings("q").consumerTokens()).containsExactly("new");
    restart();
    assertThat(broker.settings("q").maxAttempts()).isEqualTo(9);
    assertThat(broker.settings("q").consumerTokens()).containsExactly("new");
  }

  @Test
  void unknownQueueIsAnError() {
    assertThatThrownBy(() -> publish("nope", "1"))
        .isInstanceOf(BrokerException.QueueNotFound.class);
    assertThatThrownBy(() -> receive("nope", 1))
        .isInstanceOf(BrokerException.QueueNotFound.class);
  }

  @Test
  void messagesLeasesAndQueuesSurviveARestart() {
    broker.putQueue("q", new QueueSettingsPatch(null, null, 7, null, null, null, List.of("t")));
    String a = publish("q", "1");
    String b = publish("q", "2");
    Delivery leased = receive("q", 1).get(0);
    restart();
    assertThat(broker.settings("q").maxAttempts()).isEqualTo(7);
    assertThat(broker.settings("q").consumerTokens()).containsExactly("t");
    assertThat(broker.stats("q").counts().leased()).isEqualTo(1);
    assertThat(broker.stats("q").counts().ready()).isEqualTo(1);
    assertThat(receive("q", 10)).extracting(d -> d.message().id()).containsExactly(b);
    assertThat(one(broker.settle().ack("q", List.of(leased.leaseId()), false)))
        .isEqualTo(Outcome.ACKED);
    assertThat(leased.message().id()).isEqualTo(a);
  }

  @Test
  void concurrentConsumersNeverHoldTheSameMessage() throws Exception {
    queue("q", null, null);
    List<Publish> batch = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      batch.add(Publish.json("" + i));
    }
    broker.publish("q", batch);
    broker.publish("q", batch);
    Set<String> seen = ConcurrentHashMap.newKeySet();
    List<String> duplicates = new ArrayList<>();
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> fs = new ArrayList<>();
      for (int c = 0; c < 8; c++) {
        fs.add(pool.submit(() -> {
          for (int round = 0; round < 20; round++) {
            for (Delivery d : receive("q", 7)) {
              if (!seen.add(d.message().id())) {
                synchronized (duplicates) {
                  duplicates.add(d.message().id());
                }
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    }
    assertThat(duplicates).isEmpty();
    assertThat(seen).hasSize(400);
  }

  @Test
  void longPollIsWokenByAPublish() throws Exception {
    queue("q", null, null);
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<List<Delivery>> waiting =
          pool.submit(() -> broker.receive("q", 1, Duration.ofSeconds(20), null));
      // The receive is parked (or about to be); a publish must reach it well before its wait ends.
      Instant before = Instant.now();
      while (waiting.state() == Future.State.RUNNING
          && Duration.between(before, Instant.now()).toMillis() < 50) {
        Thread.onSpinWait();
      }
      String id = publish("q", "1");
      List<Delivery> got = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(got).extracting(d -> d.message().id()).containsExactly(id);
    }
  }

  /** Starts a long-poll and returns once it is parked on the queue. */
  private Future<List<Delivery>> parkedReceive(
      java.util.concurrent.ExecutorService pool, String queue, int max) {
    int before = broker.waitingConsumers(queue);
    Future<List<Delivery>> f =
        pool.submit(() -> broker.receive(queue, max, Duration.ofSeconds(30), null));
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (broker.waitingConsumers(queue) == before) {
      assertThat(System.nanoTime()).as("the receive parks").isLessThan(deadline);
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
    return f;
  }

  @Test
  void aPublishLeasesToAParkedConsumerInItsOwnCommit() throws Exception {
    queue("q", null, null);
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<List<Delivery>> waiting = parkedReceive(pool, "q", 2);
      List<PublishResult> sent =
          broker.publish("q", List.of(Publish.json("1"), Publish.json("2"), Publish.json("3")));
      // Already leased when the publish returns: the hand-off was part of the publish's write.
      QueueStatsAssert.of(broker.stats("q").counts()).is(1, 0, 2, 0);
      List<Delivery> got = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(got).extracting(d -> d.message().id())
          .containsExactly(sent.get(0).id(), sent.get(1).id());
      assertThat(got).allSatisfy(d -> {
        assertThat(d.message().attempt()).isEqualTo(1);
        assertThat(d.leaseUntil()).isEqualTo(clock.instant().plusSeconds(30));
      });
      assertThat(broker.settle().ack("q", got.stream().map(Delivery::leaseId).toList(), false))
          .extracting(LeaseOutcome::outcome).containsOnly(Outcome.ACKED);
      assertThat(receive("q", 10)).extracting(d -> d.message().id())
          .containsExactly(sent.get(2).id());
    }
  }

  @Test
  void messagesThatCameDueBetweenTwoMomentsAreCounted() {
    queue("q", null, null);
    Instant t0 = clock.instant();
    for (int seconds : new int[] {1, 2, 2, 3}) {
      broker.publish("q", List.of(new Publish(ContentType.JSON, "1".getBytes(), null, null,
          Duration.ofSeconds(seconds), null, null, null)));
    }
    publish("q", "now");
    queue("other", null, null);
    publish("other", "elsewhere");
    assertThat(store.messagesVisibleBetween("q", t0, t0.plusSeconds(3), 10)).isEqualTo(4);
    assertThat(store.messagesVisibleBetween("q", t0.plusSeconds(1), t0.plusSeconds(2), 10))
        .isEqualTo(2);
    assertThat(store.messagesVisibleBetween("q", t0, t0.plusSeconds(3), 3)).isEqualTo(3);
    assertThat(store.messagesVisibleBetween("q", t0.plusSeconds(3), t0.plusSeconds(9), 10))
        .isZero();
    assertThat(store.messagesVisibleBetween("other", t0, t0.plusSeconds(9), 10)).isZero();
  }

  @Test
  void aHandOffTakesTheOldestVisibleMessageFirst() throws Exception {
    queue("q", null, null);
    broker.publish("q", List.of(new Publish(ContentType.JSON, "early".getBytes(), null, null,
        Duration.ofSeconds(5), null, null, null)));
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<List<Delivery>> waiting = parkedReceive(pool, "q", 1);
      // The delayed message comes due on the store's clock while the consumer is parked.
      clock.advance(Duration.ofSeconds(5));
      publish("q", "late");
      assertThat(waiting.get(10, java.util.concurrent.TimeUnit.SECONDS))
          .extracting(StoreContract::body).containsExactly("early");
      assertThat(receive("q", 10)).extracting(StoreContract::body).containsExactly("late");
    }
  }

  @Test
  void aPublishThatAddsNothingLeavesTheConsumerWaitingForTheNext() throws Exception {
    queue("q", null, null);
    Publish keyed = new Publish(ContentType.JSON, "1".getBytes(), null, null, null, null,
        "evt-1", null);
    String first = broker.publish("q", List.of(keyed)).get(0).id();
    broker.settle().ack("q", List.of(receive("q", 1).get(0).leaseId()), false);
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<List<Delivery>> waiting = parkedReceive(pool, "q", 1);
      // A duplicate: the consumer is taken for it, handed nothing, and parks again.
      assertThat(broker.publish("q", List.of(keyed)).get(0).id()).isEqualTo(first);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (broker.waitingConsumers("q") == 0) {
        assertThat(waiting.isDone()).as("the consumer answered early").isFalse();
        assertThat(System.nanoTime()).as("the receive parks again").isLessThan(deadline);
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
      }
      String id = publish("q", "2");
      assertThat(waiting.get(10, java.util.concurrent.TimeUnit.SECONDS))
          .extracting(d -> d.message().id()).containsExactly(id);
    }
  }

  @Test
  void countsFollowEveryTransition() {
    queue("q", 1, null);
    publish("q", "1");
    publish("q", "2");
    broker.publish("q", List.of(new Publish(ContentType.JSON, "3".getBytes(), null, null,
        Duration.ofSeconds(60), null, null, null)));
    QueueStatsAssert.of(broker.stats("q").counts()).is(2, 1, 0, 0);
    Delivery d = receive("q", 1).get(0);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 1, 1, 0);
    broker.settle().nack("q", List.of(d.leaseId()), Duration.ZERO);
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 1, 0, 0);
    assertThat(broker.stats("q").dead()).isEqualTo(1);
    assertThat(broker.stats("q.dlq").counts().ready()).isEqualTo(1);
    restart();
    QueueStatsAssert.of(broker.stats("q").counts()).is(1, 1, 0, 0);
    assertThat(broker.stats("q").dead()).isEqualTo(1);
  }

  /** Compact assertion of (ready, delayed, leased, expired). */
  record QueueStatsAssert(QueueCounts c) {
    static QueueStatsAssert of(QueueCounts c) {
      return new QueueStatsAssert(c);
    }

    void is(long ready, long delayed, long leased, long expired) {
      assertThat(List.of(c.ready(), c.delayed(), c.leased(), c.expired()))
          .as("ready, delayed, leased, expired")
          .containsExactly(ready, delayed, leased, expired);
    }
  }
}
