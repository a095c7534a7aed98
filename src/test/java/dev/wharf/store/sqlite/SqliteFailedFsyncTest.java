package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.BrowseRequest;
import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.Delivery;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.SettleKind;
import dev.wharf.store.SettleRequest;
import dev.wharf.store.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed fsync ends every write until a restart: a later fsync that succeeds proves nothing
 * about the pages the failed one covered, and a WAL missing them loses every frame after them.
 */
class SqliteFailedFsyncTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  private final SyncGate gate = new SyncGate();
  private SqliteStore store;

  @BeforeEach
  void open() {
    store = openStore(gate);
    store.queuesPut(new QueueRecord("q", "{}", null));
  }

  @AfterEach
  void close() {
    gate.open();
    store.close();
  }

  @Test
  void afterAFailedFsyncEveryWriteIsRefusedUntilARestart() {
    publish("before");
    Delivery d = claim().get(0);
    gate.failNext();
    assertThatThrownBy(() -> publish("failed")).isInstanceOf(StoreException.class)
        .hasMessageContaining("fsync failed");
    int syncs = gate.calls();

    assertThatThrownBy(() -> publish("after")).isInstanceOf(StoreException.class)
        .hasMessageContaining("until the server restarts");
    assertThatThrownBy(() -> store.messagesSettle(ack(d))).isInstanceOf(StoreException.class)
        .hasMessageContaining("until the server restarts");
    assertThatThrownBy(this::claim).isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> store.messagesDeleteExpired(NOW, 100))
        .isInstanceOf(StoreException.class);
    assertThat(gate.calls()).as("no fsync tried after the failed one").isEqualTo(syncs);
    // Reads that need no write still answer (a browse writes leases held in memory back first),
    // and both probes say why.
    assertThat(store.queueCounts("q", NOW).leased()).isEqualTo(1);
    assertThat(store.needsRestart()).contains("fsync failed").contains("restarts");
    assertThat(store.unready()).contains("until the server restarts");

    store.close();
    store = openStore(gate);
    assertThat(store.needsRestart()).isNull();
    assertThat(store.unready()).isNull();
    publish("restarted");
    assertThat(payloads()).contains("before", "restarted").doesNotContain("after");
  }

  @Test
  void aBatchCommittedWhileTheFailingFsyncRanIsFailedNotAnswered() throws Exception {
    CountDownLatch inSync = new CountDownLatch(1);
    CountDownLatch fail = new CountDownLatch(1);
    store.close();
    store =
        openStore(
            () -> {
              if (inSync.getCount() > 0) {
                inSync.countDown();
                try {
                  fail.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                throw new IOException("injected fsync failure");
              }
            });
    CompletableFuture<List<PublishResult>> first = store.messagesPublishAsync(batch("first"));
    assertThat(inSync.await(5, TimeUnit.SECONDS)).isTrue();
    // Committed while the fsync that will fail is under way: the next round would cover it.
    CompletableFuture<List<PublishResult>> second = store.messagesPublishAsync(batch("second"));
    awaitCommitted("second");

    fail.countDown();

    assertThatThrownBy(() -> first.get(5, TimeUnit.SECONDS)).hasMessageContaining("fsync failed");
    assertThatThrownBy(() -> second.get(5, TimeUnit.SECONDS))
        .hasMessageContaining("until the server restarts");
  }

  @Test
  void afterAFailedFsyncNoCheckpointRuns() {
    store.close();
    store = openStore(gate, true);
    publish("a");
    gate.failNext();
    assertThatThrownBy(() -> publish("b")).isInstanceOf(StoreException.class);
    long passes = store.checkpointPasses();

    store.checkpointNow();

    assertThat(store.checkpointPasses()).isEqualTo(passes);
  }

  @Test
  void aCloseWhileBrokenCopiesNothingFromTheWalIntoTheDatabase() throws IOException {
    store.close();
    store = openStore(gate, true);
    publish("a");
    gate.failNext();
    assertThatThrownBy(() -> publish("b")).isInstanceOf(StoreException.class);
    Path db = dir.resolve("wharf.db");
    Path wal = dir.resolve("wharf.db-wal");
    byte[] databaseBefore = Files.readAllBytes(db);
    byte[] walBefore = Files.readAllBytes(wal);

    store.close();

    // The last connection to close would otherwise checkpoint the WAL and delete it, copying
    // frames no fsync vouches for into the database, and leaving a restart's recovery, which
    // checks every frame, nothing to check.
    assertThat(wal).exists();
    assertThat(Files.readAllBytes(wal)).isEqualTo(walBefore);
    assertThat(Files.readAllBytes(db)).isEqualTo(databaseBefore);
    store = openStore(gate);
    assertThat(payloads()).contains("a");
  }

  @Test
  void leasesHeldInMemoryWaitForARestartWithoutSpinningTheWriter() throws Exception {
    store.close();
    store = SyncGate.storeAt(dir.resolve("wharf.db"), gate);
    // Long enough that the lease is still held in memory when the fsync fails.
    store.writeLeasesBackAfter(java.time.Duration.ofMillis(200));
    store.start();
    publish("a");
    assertThat(claim()).hasSize(1);
    gate.failNext();
    assertThatThrownBy(() -> publish("b")).isInstanceOf(StoreException.class);
    java.util.concurrent.atomic.AtomicInteger rounds =
        new java.util.concurrent.atomic.AtomicInteger();
    store.writer().observeStages(
        new WriterStages(n -> {}, n -> rounds.incrementAndGet(), n -> {}, n -> {}));

    // A window to count in, past the lease's write-back age: a write-back due and refused at once,
    // again and again, would run the writer's loop without pause.
    Thread.sleep(500);

    assertThat(rounds.get()).as("writer rounds while broken").isLessThan(10);
  }

  private SqliteStore openStore(WalSync sync) {
    return openStore(sync, false);
  }

  private SqliteStore openStore(WalSync sync, boolean checkpointOnlyWhenAsked) {
    SqliteStore s = SyncGate.storeAt(dir.resolve("wharf.db"), sync);
    if (checkpointOnlyWhenAsked) {
      s.checkpointOnlyWhenAsked();
    }
    s.start();
    return s;
  }

  private static PublishBatch batch(String payload) {
    NewMessage m =
        new NewMessage(
            ContentType.TEXT, payload.getBytes(StandardCharsets.UTF_8), Map.of(), null, NOW, null,
            null, null);
    return new PublishBatch("q", List.of(m), NOW, NOW);
  }

  private void publish(String payload) {
    store.messagesPublish(batch(payload));
  }

  private List<Delivery> claim() {
    return store.messagesClaim(new ClaimRequest("q", 10, NOW, NOW.plusSeconds(60)));
  }

  private static SettleRequest ack(Delivery d) {
    return new SettleRequest(
        "q", SettleKind.ACK, List.of(d.leaseId()), NOW, NOW, NOW, new DeadLetterPolicy(0, null),
        null, false);
  }

  /** Every committed message's payload, on disk or not yet. */
  private List<String> payloads() {
    return store.messagesBrowse(new BrowseRequest("q", null, null, null, NOW, 0, 100)).stream()
        .map(m -> new String(m.payload(), StandardCharsets.UTF_8))
        .toList();
  }

  private void awaitCommitted(String payload) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!payloads().contains(payload)) {
      assertThat(System.nanoTime()).as("%s committed in time", payload).isLessThan(deadline);
      Thread.sleep(1);
    }
  }
}
