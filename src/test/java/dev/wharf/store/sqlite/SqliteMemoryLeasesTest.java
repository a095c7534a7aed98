package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.ContentType;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leases held in memory ({@link MemoryLeases}): an ack of one never writes the lease, a crash
 * forgets it (the message is ready again at once, DESIGN §4), and every other path sees such a
 * message as leased, exactly as if the claim had written its row.
 */
class SqliteMemoryLeasesTest {
  @TempDir Path dir;
  private final MutableClock clock = MutableClock.atEpochDay();
  private SimpleMeterRegistry registry;
  private Path file;
  private SqliteStore store;
  private Broker broker;

  @BeforeEach
  void open() {
    boot(dir.resolve("wharf.db"), Duration.ofHours(1));
    broker.putQueue("q", new QueueSettingsPatch(null, null, 3, Optional.of("q.dlq"), null, null, null));
  }

  @AfterEach
  void close() {
    broker.close();
    store.close();
  }

  /** Opens a store whose leases are written back once {@code age} old (never, in a test). */
  private void boot(Path file, Duration age) {
    this.file = file;
    store = new SqliteStore(file);
    store.writeLeasesBackAfter(age);
    // The copies taken as crash images must not race a checkpoint.
    store.checkpointOnlyWhenAsked();
    store.start();
    registry = new SimpleMeterRegistry();
    store.bindMetrics(registry);
    broker = new Broker(store, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
  }

  private double writtenBack() {
    return registry.get("wharf_sqlite_leases_written_back").functionCounter().count();
  }

  private double held() {
    return registry.get("wharf_sqlite_leases_in_memory").gauge().value();
  }

  private String publish(String body) {
    return broker.publish("q", List.of(Publish.json(body))).get(0).id();
  }

  private List<Delivery> receive(String queue, int max) {
    return broker.receive(queue, max, Duration.ZERO, null);
  }

  private Outcome ack(Delivery d) {
    List<LeaseOutcome> out = broker.settle().ack(d.message().queue(), List.of(d.leaseId()), false);
    return out.get(0).outcome();
  }

  private static String body(Delivery d) {
    return new String(d.message().payload(), StandardCharsets.UTF_8);
  }

  /**
   * What a kill -9 leaves: the database and its WAL as they are now (every answered write is in
   * them), copied while nothing writes, opened as a new store.
   */
  private void crashAndRestart() throws Exception {
    Path image = dir.resolve("crash-" + System.nanoTime());
    Files.createDirectories(image);
    Files.copy(file, image.resolve("wharf.db"));
    Files.copy(Path.of(file + "-wal"), image.resolve("wharf.db-wal"));
    broker.close();
    store.close();
    boot(image.resolve("wharf.db"), Duration.ofHours(1));
  }

  @Test
  void anAckedLeaseIsNeverWritten() {
    publish("1");
    publish("2");
    List<Delivery> got = receive("q", 2);
    assertThat(held()).isEqualTo(2);

    assertThat(got).extracting(this::ack).containsOnly(Outcome.ACKED);

    assertThat(held()).isZero();
    assertThat(writtenBack()).isZero();
    assertThat(broker.stats("q").counts().depth()).isZero();
    // A repeat is a success (DESIGN §3), as for a lease that was written, and writes none.
    assertThat(ack(got.get(0))).isEqualTo(Outcome.ACKED);
    assertThat(writtenBack()).isZero();
  }

  @Test
  void aCrashForgetsALeaseNotYetWrittenAndTheMessageIsReadyAtOnce() throws Exception {
    String id = publish("1");
    assertThat(receive("q", 1)).hasSize(1);

    crashAndRestart();

    List<Delivery> again = receive("q", 1);
    assertThat(again).extracting(d -> d.message().id()).containsExactly(id);
    // The forgotten delivery is not counted against max_attempts.
    assertThat(again.get(0).message().attempt()).isEqualTo(1);
  }

  @Test
  void aLeaseOlderThanTheWriteBackAgeOutlivesACrash() throws Exception {
    close();
    boot(dir.resolve("aged.db"), Duration.ZERO);
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    publish("1");
    Delivery d = receive("q", 1).get(0);
    // The writer writes aged leases back in a transaction of its own, right after the claim's.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (writtenBack() < 1) {
      assertThat(System.nanoTime()).as("written back in time").isLessThan(deadline);
      Thread.sleep(1);
    }

    crashAndRestart();

    assertThat(receive("q", 1)).isEmpty();
    clock.advance(Duration.ofSeconds(31));
    broker.reapers().runOnce(clock.instant());
    Delivery again = receive("q", 1).get(0);
    assertThat(again.message().id()).isEqualTo(d.message().id());
    assertThat(again.message().attempt()).isEqualTo(2);
  }

  @Test
  void aCleanStopWritesLeasesBack() {
    publish("1");
    Delivery d = receive("q", 1).get(0);

    broker.close();
    store.close();
    boot(dir.resolve("wharf.db"), Duration.ofHours(1));

    assertThat(receive("q", 1)).isEmpty();
    assertThat(broker.stats("q").counts().leased()).isEqualTo(1);
    assertThat(ack(d)).isEqualTo(Outcome.ACKED);
  }

  @Test
  void aNackOfOneOfABatchMakesItDeliverableWhileTheOthersStayLeased() {
    publish("x");
    publish("y");
    List<Delivery> got = receive("q", 2);

    List<LeaseOutcome> nacked =
        broker.settle().nack("q", List.of(got.get(1).leaseId()), Duration.ZERO);

    assertThat(nacked.get(0).outcome()).isEqualTo(Outcome.RETRIED);
    List<Delivery> again = receive("q", 10);
    assertThat(again).extracting(SqliteMemoryLeasesTest::body).containsExactly("y");
    assertThat(again.get(0).message().attempt()).isEqualTo(2);
    assertThat(ack(got.get(0))).isEqualTo(Outcome.ACKED);
    assertThat(ack(again.get(0))).isEqualTo(Outcome.ACKED);
    assertThat(broker.stats("q").counts().depth()).isZero();
  }

  @Test
  void anExtendOfALeaseHeldInMemoryWritesNothingAndMovesItsEnd() {
    publish("1");
    Delivery d = receive("q", 1).get(0);
    clock.advance(Duration.ofSeconds(20));

    LeaseOutcome extended =
        broker.settle().extend("q", List.of(d.leaseId()), Duration.ofSeconds(60)).get(0);

    assertThat(extended.outcome()).isEqualTo(Outcome.EXTENDED);
    assertThat(extended.leaseUntil()).isEqualTo(clock.instant().plusSeconds(60));
    assertThat(writtenBack()).isZero();
    assertThat(held()).isEqualTo(1);
    // Past the claim's 30 s the lease holds; past the extension it ends, its attempt counted.
    clock.advance(Duration.ofSeconds(59));
    broker.reapers().runOnce(clock.instant());
    assertThat(receive("q", 1)).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    broker.reapers().runOnce(clock.instant());
    Delivery again = receive("q", 1).get(0);
    assertThat(again.message().attempt()).isEqualTo(2);
    assertThat(ack(d)).isEqualTo(Outcome.LEASE_NOT_FOUND);
  }

  @Test
  void aReleaseOrDeferOfALeaseHeldInMemoryMovesOnlyItsVisibleTime() {
    publish("a");
    publish("b");
    List<Delivery> got = receive("q", 2);
    clock.advance(Duration.ofSeconds(1));

    assertThat(broker.settle().release("q", List.of(got.get(0).leaseId())).get(0).outcome())
        .isEqualTo(Outcome.RELEASED);
    assertThat(
            broker.settle().defer("q", List.of(got.get(1).leaseId()), Duration.ofSeconds(10))
                .get(0).outcome())
        .isEqualTo(Outcome.DEFERRED);

    assertThat(writtenBack()).isZero();
    assertThat(held()).isZero();
    assertThat(broker.stats("q").counts().leased()).isZero();
    assertThat(broker.stats("q").counts().delayed()).isEqualTo(1);
    // Neither took an attempt: the next deliveries are each message's first again.
    Delivery a = receive("q", 10).get(0);
    assertThat(body(a)).isEqualTo("a");
    assertThat(a.message().attempt()).isEqualTo(1);
    assertThat(receive("q", 10)).isEmpty();
    clock.advance(Duration.ofSeconds(10));
    Delivery b = receive("q", 10).get(0);
    assertThat(body(b)).isEqualTo("b");
    assertThat(b.message().attempt()).isEqualTo(1);
    assertThat(ack(a)).isEqualTo(Outcome.ACKED);
    assertThat(ack(b)).isEqualTo(Outcome.ACKED);
    assertThat(broker.stats("q").counts().depth()).isZero();
  }

  @Test
  void aReleaseThatPutsAMessageBeforeTheLastOneLeasedStillDeliversIt() {
    publish("a");
    publish("b");
    List<Delivery> got = receive("q", 2);

    // Released in the millisecond of the claim: it sorts before "b", whose lease is in memory.
    broker.settle().release("q", List.of(got.get(0).leaseId()));

    assertThat(receive("q", 10)).extracting(SqliteMemoryLeasesTest::body).containsExactly("a");
    assertThat(broker.stats("q").counts().leased()).isEqualTo(2);
    assertThat(ack(got.get(1))).isEqualTo(Outcome.ACKED);
  }

  @Test
  void aMessageMadeVisibleBeforeTheLastOneLeasedIsStillDelivered() {
    clock.advance(Duration.ofSeconds(10));
    publish("late");
    assertThat(receive("q", 1)).extracting(SqliteMemoryLeasesTest::body).containsExactly("late");
    // A publisher whose clock reads earlier: its message sorts before the one leased in memory.
    clock.advance(Duration.ofSeconds(-5));
    publish("early");
    clock.advance(Duration.ofSeconds(5));

    assertThat(receive("q", 10)).extracting(SqliteMemoryLeasesTest::body).containsExactly("early");
    assertThat(broker.stats("q").counts().leased()).isEqualTo(2);
  }

  @Test
  void aKeyUpsertLeavesAMessageLeasedInMemoryAlone() {
    Publish first = keyed("v1");
    String id = broker.publish("q", List.of(first)).get(0).id();
    Delivery d = receive("q", 1).get(0);

    var second = broker.publish("q", List.of(keyed("v2"))).get(0);

    assertThat(second.replaced()).isFalse();
    assertThat(second.id()).isNotEqualTo(id);
    assertThat(ack(d)).isEqualTo(Outcome.ACKED);
    assertThat(receive("q", 10)).extracting(SqliteMemoryLeasesTest::body).containsExactly("\"v2\"");
  }

  private static Publish keyed(String value) {
    return new Publish(ContentType.JSON, ("\"" + value + "\"").getBytes(StandardCharsets.UTF_8),
        null, null, null, null, null, "k");
  }

  @Test
  void browseAndStatsShowALeaseHeldInMemoryAsLeased() {
    publish("1");
    clock.advance(Duration.ofSeconds(3));
    publish("2");
    clock.advance(Duration.ofSeconds(4));
    receive("q", 1);

    // The longest-waiting ready message is the second: the first is leased, though only in memory.
    assertThat(broker.stats("q").counts().readySince())
        .isEqualTo(clock.instant().minusSeconds(4));
    assertThat(broker.browse("q", MessageState.LEASED, null, 0, 10))
        .extracting(Message::payload)
        .extracting(p -> new String(p, StandardCharsets.UTF_8))
        .containsExactly("1");
    assertThat(broker.browse("q", MessageState.READY, null, 0, 10)).hasSize(1);
  }

  @Test
  void aLeaseHeldInMemoryExpiresOnTimeAndCountsItsAttempt() {
    publish("1");
    receive("q", 1);
    clock.advance(Duration.ofSeconds(31));

    broker.reapers().runOnce(clock.instant());

    Delivery again = receive("q", 1).get(0);
    assertThat(again.message().attempt()).isEqualTo(2);
  }

  @Test
  void aLeasedMessageWhoseTtlEndsExpires() {
    broker.publish("q", List.of(new Publish(ContentType.JSON, "1".getBytes(StandardCharsets.UTF_8),
        null, null, null, Duration.ofSeconds(5), null, null)));
    Delivery d = receive("q", 1).get(0);
    clock.advance(Duration.ofSeconds(6));

    broker.reapers().runOnce(clock.instant());

    assertThat(broker.stats("q").counts().leased()).isZero();
    assertThat(broker.stats("q").counts().expired()).isEqualTo(1);
    assertThat(ack(d)).isEqualTo(Outcome.LEASE_NOT_FOUND);
  }

  @Test
  void purgeAndQueueDeletionTakeLeasesHeldInMemory() {
    publish("1");
    publish("2");
    receive("q", 1);

    assertThat(broker.purge("q")).isEqualTo(2);
    assertThat(broker.stats("q").counts().depth()).isZero();

    publish("3");
    receive("q", 1);
    assertThat(broker.deleteQueue("q")).isTrue();
    assertThat(held()).isZero();
  }

  @Test
  void aDeadMessageLeasedFromItsDlqIsNotRedriven() {
    publish("1");
    for (int i = 0; i < 3; i++) {
      Delivery d = receive("q", 1).get(0);
      broker.settle().nack("q", List.of(d.leaseId()), Duration.ZERO);
    }
    assertThat(receive("q.dlq", 1)).hasSize(1);

    assertThat(broker.redrive("q", null).moved()).isZero();
    assertThat(broker.stats("q.dlq").counts().leased()).isEqualTo(1);
  }
}
