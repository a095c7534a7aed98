package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.SettleKind;
import dev.wharf.store.SettleRequest;
import dev.wharf.store.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A settle is answered at its commit (DESIGN §4), not after the fsync a publish waits for, and
 * that fsync is still made for it, so it reaches the disk though nobody waits for it.
 */
class SqliteSettleAtCommitTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  private final SyncGate gate = new SyncGate();
  private SqliteStore store;

  @BeforeEach
  void open() {
    store = openStore();
    store.queuesPut(new QueueRecord("q", "{}", null));
    store.queuesPut(new QueueRecord("q-dlq", "{}", null));
  }

  @AfterEach
  void close() {
    gate.open();
    store.close();
  }

  @Test
  void anAckIsAnsweredWhileItsFsyncIsHeldAndThatFsyncIsAskedFor() throws Exception {
    publish("a");
    Delivery d = claim().get(0);
    gate.close();

    List<LeaseOutcome> got =
        store.messagesSettleAsync(settle(SettleKind.ACK, d)).get(5, TimeUnit.SECONDS);

    assertThat(got).extracting(LeaseOutcome::outcome).containsExactly(Outcome.ACKED);
    gate.awaitHeld(1);
    gate.open();
    store.close();
    store = openStore();
    assertThat(store.queueCounts("q", NOW).ready()).isZero();
    assertThat(claim()).isEmpty();
  }

  /**
   * What a kill -9 leaves is the files as the OS holds them, fsynced or not: copies of them taken
   * while the ack's fsync is still held, opened by a new store, must not have the message back.
   * A copy taken just before the ack, opened the same way, shows that one would see it.
   */
  @Test
  void anAckAnsweredBeforeItsFsyncIsInTheFilesAKillNineLeaves() throws Exception {
    gate.open();
    store.close();
    Path live = dir.resolve("live");
    Files.createDirectories(live);
    // No passive checkpoint may write the database file while it is copied.
    store = openStore(live.resolve("wharf.db"), true);
    store.queuesPut(new QueueRecord("q", "{}", null));
    publish("a");
    Delivery d = claim().get(0);
    gate.close();
    Path beforeAck = killedCopy(live, "before-ack");

    List<LeaseOutcome> got =
        store.messagesSettleAsync(settle(SettleKind.ACK, d)).get(5, TimeUnit.SECONDS);
    assertThat(got).extracting(LeaseOutcome::outcome).containsExactly(Outcome.ACKED);
    gate.awaitHeld(1);
    Path afterAck = killedCopy(live, "after-ack");

    assertThat(claimedAfterRestart(beforeAck)).isEqualTo(1);
    assertThat(claimedAfterRestart(afterAck)).isZero();
  }

  /**
   * The database and its WAL as they are now, taken while the store is open: the shared-memory
   * index is left behind, as a restart rebuilds it from the WAL.
   */
  private Path killedCopy(Path live, String name) throws Exception {
    Path to = dir.resolve(name);
    Files.createDirectories(to);
    Files.copy(live.resolve("wharf.db"), to.resolve("wharf.db"));
    Files.copy(live.resolve("wharf.db-wal"), to.resolve("wharf.db-wal"));
    return to.resolve("wharf.db");
  }

  /** Messages a store opened on {@code file} hands out an hour on, past any lease they had. */
  private static int claimedAfterRestart(Path file) {
    SqliteStore restarted = new SqliteStore(file);
    restarted.start();
    try {
      Instant later = NOW.plusSeconds(3600);
      return restarted
          .messagesClaim(new ClaimRequest("q", 10, later, later.plusSeconds(60)))
          .size();
    } finally {
      restarted.close();
    }
  }

  @Test
  void aNackToTheDeadLetterQueueIsAnsweredAtCommitToo() throws Exception {
    publish("a");
    Delivery d = claim().get(0);
    gate.close();

    List<LeaseOutcome> got =
        CompletableFuture.supplyAsync(() -> store.messagesSettle(dead(d)))
            .get(5, TimeUnit.SECONDS);

    assertThat(got).extracting(LeaseOutcome::outcome).containsExactly(Outcome.DEAD);
  }

  @Test
  void aPublishBesideASettleStillWaitsForItsFsync() throws Exception {
    publish("a");
    Delivery d = claim().get(0);
    gate.close();

    CompletableFuture<List<PublishResult>> publishing = store.messagesPublishAsync(batch("b"));
    store.messagesSettleAsync(settle(SettleKind.ACK, d)).get(5, TimeUnit.SECONDS);
    gate.awaitHeld(1);

    assertThat(publishing).isNotDone();
    gate.open();
    assertThat(publishing.get(5, TimeUnit.SECONDS)).hasSize(1);
  }

  @Test
  void whileAFullDiskFailsWritesASettleWaitsForItsFsyncUntilOneWorks() throws Exception {
    publish("a");
    publish("b");
    List<Delivery> ds = claim();
    roomForNoMorePages();
    assertThatThrownBy(() -> store.messagesPublish(batch("c".repeat(64 * 1024))))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("full");
    gate.close();

    CompletableFuture<List<LeaseOutcome>> first =
        store.messagesSettleAsync(settle(SettleKind.ACK, ds.get(0)));
    gate.awaitHeld(1);

    // The fsync it counts on may fail as the last write did: not answered until it is done.
    assertThat(first).isNotDone();
    gate.letOneThrough();
    assertThat(first.get(5, TimeUnit.SECONDS))
        .extracting(LeaseOutcome::outcome)
        .containsExactly(Outcome.ACKED);
    // That fsync worked and ended the failure: the next settle is answered at its commit again.
    List<LeaseOutcome> second =
        store.messagesSettleAsync(settle(SettleKind.ACK, ds.get(1))).get(5, TimeUnit.SECONDS);
    assertThat(second).extracting(LeaseOutcome::outcome).containsExactly(Outcome.ACKED);
  }

  @Test
  void afterAFailedFsyncASettleIsRefusedNotAnsweredAtCommit() throws Exception {
    publish("a");
    Delivery d = claim().get(0);
    gate.failNext();
    assertThatThrownBy(() -> publish("b")).isInstanceOf(StoreException.class);

    CompletableFuture<List<LeaseOutcome>> acking =
        store.messagesSettleAsync(settle(SettleKind.ACK, d));

    assertThatThrownBy(() -> acking.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(StoreException.class)
        .hasMessageContaining("fsync failed")
        .hasMessageContaining("until the server restarts");
  }

  /** The database may not grow past the pages it has now: SQLite answers SQLITE_FULL. */
  private void roomForNoMorePages() {
    store.writer().submit(tx -> {
      try (java.sql.Statement s = tx.conn.createStatement()) {
        long now;
        try (java.sql.ResultSet rs = s.executeQuery("PRAGMA page_count")) {
          rs.next();
          now = rs.getLong(1);
        }
        s.execute("PRAGMA max_page_count = " + now);
      }
      return null;
    });
  }

  private SqliteStore openStore() {
    return openStore(dir.resolve("wharf.db"), false);
  }

  private SqliteStore openStore(Path file, boolean checkpointOnlyWhenAsked) {
    SqliteStore s = SyncGate.storeAt(file, gate);
    if (checkpointOnlyWhenAsked) {
      s.checkpointOnlyWhenAsked();
    }
    s.start();
    return s;
  }

  private static SettleRequest settle(SettleKind kind, Delivery d) {
    return new SettleRequest(
        "q", kind, List.of(d.leaseId()), NOW, NOW, NOW, new DeadLetterPolicy(0, "q-dlq"), null,
        false);
  }

  private static SettleRequest dead(Delivery d) {
    return new SettleRequest(
        "q", SettleKind.DEAD, List.of(d.leaseId()), NOW, null, null,
        new DeadLetterPolicy(0, "q-dlq"), "done with it", false);
  }

  private static PublishBatch batch(String payload) {
    NewMessage m =
        new NewMessage(ContentType.TEXT, payload.getBytes(), Map.of(), null, NOW, null, null, null);
    return new PublishBatch("q", List.of(m), NOW, NOW);
  }

  private void publish(String payload) {
    store.messagesPublish(batch(payload));
  }

  private List<Delivery> claim() {
    return store.messagesClaim(new ClaimRequest("q", 10, NOW, NOW.plusSeconds(60)));
  }
}
