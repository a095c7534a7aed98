package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.QueueGone;
import dev.wharf.store.SettleKind;
import dev.wharf.store.SettleRequest;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which commits wait for the server's WAL flush: a transaction of only settles and claims (or a
 * reaper pass) does not, one with anything else does, judged anew for each transaction. The
 * setting is read from the server inside each transaction, just before its commit.
 */
class PgLazyCommitTest {
  private final PostgresSettings settings = TestDatabase.freshSchema(2);
  private final String schema = TestDatabase.schemaOf(settings);
  private final MutableClock clock = MutableClock.atEpochDay();
  private final List<String> commits = new ArrayList<>();
  /** Holds the next commit until released, so that what is queued meanwhile is one batch. */
  private record Hold(CountDownLatch reached, CountDownLatch released) {}

  private volatile Hold hold;
  private PostgresStore store;
  private Broker broker;

  @BeforeEach
  void open() {
    // Pool 2: one writer lane, so that writes queued behind a held commit make one batch.
    store = new PostgresStore(settings, 120_000);
    store.start();
    broker = new Broker(store, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
    broker.putQueue("q", new QueueSettingsPatch(
        null, null, null, Optional.of("q-dlq"), null, null, null));
    store.beforeEachCommit(c -> {
      synchronized (commits) {
        commits.add(SessionProbe.setting(c, "synchronous_commit"));
      }
      Hold h = hold;
      if (h != null) {
        hold = null;
        h.reached().countDown();
        try {
          assertThat(h.released().await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
  }

  @AfterEach
  void close() {
    if (broker != null) {
      broker.close();
    }
    if (store != null) {
      store.close();
    }
    TestDatabase.dropSchema(schema);
  }

  /** The settings of the commits {@code action} made, in order. */
  private List<String> commitsOf(Runnable action) {
    synchronized (commits) {
      commits.clear();
    }
    action.run();
    synchronized (commits) {
      return List.copyOf(commits);
    }
  }

  private List<Delivery> receive(int max) {
    return broker.receive("q", max, Duration.ZERO, null);
  }

  private void publish(int n) {
    List<Publish> messages = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      messages.add(Publish.json("{\"n\":" + i + "}"));
    }
    broker.publish("q", messages);
  }

  @Test
  void settlesAndClaimsCommitWithoutTheFlushAndEveryOtherWriteWithIt() {
    assertThat(commitsOf(() -> publish(4))).containsExactly("on");
    List<Delivery> got = new ArrayList<>();
    assertThat(commitsOf(() -> got.addAll(receive(4)))).containsExactly("off");
    assertThat(got).hasSize(4);
    String q = "q";
    assertThat(commitsOf(() -> broker.settle().ack(q, List.of(got.get(0).leaseId()), false)))
        .containsExactly("off");
    assertThat(commitsOf(() -> broker.settle().nack(q, List.of(got.get(1).leaseId()),
        Duration.ofSeconds(5)))).containsExactly("off");
    assertThat(commitsOf(() -> broker.settle().extend(q, List.of(got.get(2).leaseId()),
        Duration.ofSeconds(60)))).containsExactly("off");
    assertThat(commitsOf(() -> broker.settle().defer(q, List.of(got.get(2).leaseId()),
        Duration.ofSeconds(5)))).containsExactly("off");
    assertThat(commitsOf(() -> broker.settle().release(q, List.of(got.get(3).leaseId()))))
        .containsExactly("off");
    clock.advance(Duration.ofSeconds(1));
    assertThat(commitsOf(() -> receive(1).forEach(d -> broker.settle()
        .dead(q, List.of(d.leaseId()), "bad")))).containsExactly("off", "off");
    // A receive that leased nothing changed nothing: its commit has nothing to flush.
    assertThat(commitsOf(() -> assertThat(receive(10)).isEmpty())).containsExactly("on");

    String dead = broker.deadLetters(q, 0, 10).get(0).id();
    assertThat(broker.message("q-dlq", dead).id()).isEqualTo(dead);
    // The lane's session, off for those transactions only, is on again for these.
    assertThat(commitsOf(() -> broker.redrive(q, List.of(dead)))).containsExactly("on");
    assertThat(commitsOf(() -> broker.deleteMessage(q, dead))).containsExactly("on");
    assertThat(commitsOf(() -> broker.purge(q))).containsExactly("on");
    assertThat(commitsOf(() -> broker.putQueue("r", QueueSettingsPatch.EMPTY)))
        .isNotEmpty().containsOnly("on");
  }

  private Instant now() {
    return clock.instant();
  }

  private PublishBatch batch(String queue) {
    NewMessage m = new NewMessage(ContentType.JSON, "{}".getBytes(StandardCharsets.UTF_8),
        Map.of(), null, now(), null, null, null);
    return new PublishBatch(queue, List.of(m), now(), now().plusSeconds(60));
  }

  private SettleRequest ack(Delivery d) {
    return new SettleRequest("q", SettleKind.ACK, List.of(d.leaseId()), now(), null, null, null,
        null, false);
  }

  /**
   * The settings of the commits of {@code first}'s writes, held at their commit until {@code
   * queued} has queued more, and of those: each write adds its future to {@code writes}.
   */
  private List<String> behindAHeldCommit(List<CompletableFuture<?>> writes, Runnable first,
      Runnable queued) {
    Hold h = new Hold(new CountDownLatch(1), new CountDownLatch(1));
    hold = h;
    return commitsOf(() -> {
      first.run();
      try {
        assertThat(h.reached().await(10, TimeUnit.SECONDS)).isTrue();
        queued.run();
        h.released().countDown();
        for (CompletableFuture<?> f : writes) {
          f.handle((r, e) -> r).get(10, TimeUnit.SECONDS);
        }
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
  }

  @Test
  void aPublishInTheBatchKeepsItsCommitWaitingForTheFlush() throws Exception {
    publish(3);
    List<Delivery> got = receive(3);
    List<CompletableFuture<?>> all = new ArrayList<>();
    // A lone ack, held; then a publish and an ack queue behind it and run as one batch; then
    // an ack and a claim, again one batch.
    List<String> seen = behindAHeldCommit(all,
        () -> all.add(store.messagesSettleAsync(ack(got.get(0)))),
        () -> {
          all.add(store.messagesPublishAsync(batch("q")));
          all.add(store.messagesSettleAsync(ack(got.get(1))));
        });
    assertThat(seen).containsExactly("off", "on");
    for (CompletableFuture<?> f : all) {
      f.get();
    }

    all.clear();
    ClaimRequest claim = new ClaimRequest("q", 10, now(), now().plusSeconds(30), 1 << 20);
    seen = behindAHeldCommit(all,
        () -> all.add(store.messagesPublishAsync(batch("q"))),
        () -> {
          all.add(store.messagesSettleAsync(ack(got.get(2))));
          all.add(store.messagesClaimAsync(claim));
        });
    assertThat(seen).containsExactly("on", "off");
    assertThat((List<?>) all.get(2).get()).hasSize(2);
  }

  @Test
  void aFailedBatchRunOnePerTransactionJudgesEachAlone() throws Exception {
    publish(1);
    Delivery d = receive(1).get(0);
    List<CompletableFuture<?>> all = new ArrayList<>();
    // The publish into a queue that does not exist fails the batch behind the held one; it is
    // run again one operation per transaction, in order.
    List<String> seen = behindAHeldCommit(all,
        () -> all.add(store.messagesPublishAsync(batch("q"))),
        () -> {
          all.add(store.messagesSettleAsync(ack(d)));
          all.add(store.messagesPublishAsync(batch("gone")));
          all.add(store.messagesPublishAsync(batch("q")));
        });
    assertThat(seen).containsExactly("on", "off", "on");
    assertThat(((List<?>) all.get(1).get()).get(0))
        .isEqualTo(LeaseOutcome.of(d.leaseId(), LeaseOutcome.Outcome.ACKED));
    assertThatThrownBy(() -> all.get(2).get()).hasCauseInstanceOf(QueueGone.class);
    assertThat((List<?>) all.get(3).get()).hasSize(1);
  }

  @Test
  void aBatchRunAgainOnANewConnectionIsJudgedAgain() {
    publish(1);
    Delivery d = receive(1).get(0);
    // The lane's connection ends while idle: the ack finds it dead and runs on a new one.
    assertThat(TestDatabase.query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
        + " WHERE application_name = '" + store.applicationName() + "'"
        + " AND pid <> pg_backend_pid()")).isPositive();
    assertThat(commitsOf(() -> assertThat(broker.settle().ack("q", List.of(d.leaseId()), false))
        .containsExactly(LeaseOutcome.of(d.leaseId(), LeaseOutcome.Outcome.ACKED))))
        .containsExactly("off");
    assertThat(commitsOf(() -> publish(1))).containsExactly("on");
  }

  @Test
  void aReaperPassThatMovesRowsCommitsWithoutTheFlush() {
    publish(1);
    assertThat(receive(1)).hasSize(1);
    LeaseExpiryRequest due = new LeaseExpiryRequest(
        now().plusSeconds(60), 100, q -> new DeadLetterPolicy(0, null));
    assertThat(commitsOf(() -> assertThat(store.leasesExpire(due).touched()).isEqualTo(1)))
        .containsExactly("off");
    assertThat(commitsOf(() -> assertThat(store.leasesExpire(due).touched()).isZero()))
        .containsExactly("on");
    clock.advance(Duration.ofSeconds(60));
    assertThat(receive(1)).hasSize(1);
  }
}
