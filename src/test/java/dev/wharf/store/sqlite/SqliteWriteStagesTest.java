package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.ContentType;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.StoreException;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
 * The write stages in the metrics: a batch is counted as run at its commit, and as made durable
 * only once the fsync that covers it returns, so a disk that holds writes back shows in the one
 * and not the other.
 */
class SqliteWriteStagesTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  private final SyncGate gate = new SyncGate();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private SqliteStore store;

  @BeforeEach
  void open() {
    store = SyncGate.storeAt(dir.resolve("wharf.db"), gate);
    store.start();
    store.queuesPut(new QueueRecord("q", "{}", null));
    store.bindMetrics(registry);
  }

  @AfterEach
  void close() {
    gate.open();
    store.close();
  }

  @Test
  void aBatchIsDurableInTheMetricsOnlyOnceItsFsyncReturns() throws Exception {
    gate.close();
    CompletableFuture<List<PublishResult>> publishing =
        CompletableFuture.supplyAsync(() -> store.messagesPublish(batch("held")));
    gate.awaitHeld(1);

    // Committed and held at the fsync: run, not durable, and not answered. (The writer notes its
    // batch once the batch is handed to the fsync, so that note may come a moment after.)
    awaitCount("wharf_sqlite_batch", 1);
    assertThat(count("wharf_sqlite_write_queued")).isEqualTo(1);
    assertThat(count("wharf_sqlite_batch_durable")).isZero();
    assertThat(count("wharf_sqlite_wal_fsync")).isZero();
    assertThat(publishing).isNotDone();

    gate.letOneThrough();
    publishing.get(5, TimeUnit.SECONDS);

    assertThat(count("wharf_sqlite_batch_durable")).isEqualTo(1);
    assertThat(count("wharf_sqlite_wal_fsync")).isEqualTo(1);
    // Commit to durable holds the fsync and the wait for it.
    assertThat(timer("wharf_sqlite_batch_durable").totalTime(TimeUnit.NANOSECONDS))
        .isGreaterThanOrEqualTo(timer("wharf_sqlite_wal_fsync").totalTime(TimeUnit.NANOSECONDS));
  }

  @Test
  void aBatchThatChangedNoRowIsAnsweredWithoutAnFsync() throws Exception {
    gate.close();
    // A reaper's pass that finds nothing, as an idle server runs ten times a second.
    CompletableFuture<Integer> pruning =
        CompletableFuture.supplyAsync(() -> store.messagesDeleteExpired(NOW, 100));
    assertThat(pruning.get(30, TimeUnit.SECONDS)).isZero();
    assertThat(count("wharf_sqlite_wal_fsync")).isZero();
    assertThat(gate.heldNow()).isZero();

    // One that changes a row is held at the fsync as ever.
    CompletableFuture<List<PublishResult>> publishing =
        CompletableFuture.supplyAsync(() -> store.messagesPublish(batch("held")));
    gate.awaitHeld(1);
    assertThat(publishing).isNotDone();
    gate.letOneThrough();
    publishing.get(30, TimeUnit.SECONDS);
    assertThat(count("wharf_sqlite_wal_fsync")).isEqualTo(1);
  }

  private void awaitCount(String name, long n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (count(name) < n) {
      assertThat(System.nanoTime()).as("%s counted in time", name).isLessThan(deadline);
      Thread.sleep(1);
    }
    assertThat(count(name)).isEqualTo(n);
  }

  private long count(String name) {
    return timer(name).count();
  }

  private Timer timer(String name) {
    return registry.get(name).timer();
  }

  private static PublishBatch batch(String payload) {
    NewMessage m =
        new NewMessage(ContentType.TEXT, payload.getBytes(), Map.of(), null, NOW, null, null, null);
    return new PublishBatch("q", List.of(m), NOW, NOW);
  }
}
