package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ContentType;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.QueueRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Closing the store finishes the fsync under way and answers the writes it covers. */
class SqliteCloseTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;

  @Test
  void aWriteWhoseFsyncIsUnderWayAtCloseIsAnsweredNotFailed() throws Exception {
    SyncGate gate = new SyncGate();
    SqliteStore store =
        SyncGate.storeAt(dir.resolve("wharf.db"), gate);
    store.start();
    store.queuesPut(new QueueRecord("q", "{}", null));
    gate.close();
    CompletableFuture<List<PublishResult>> publishing =
        CompletableFuture.supplyAsync(() -> store.messagesPublish(batch("last")));
    gate.awaitHeld(1);

    Thread closer = Thread.ofPlatform().start(store.writer()::close);
    // The writer has stopped and the close waits for the fsync thread: an interrupt of that thread
    // now, under its fsync, would close the WAL's channel and fail the publish.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while ((writerAlive() || closer.getState() != Thread.State.TIMED_WAITING)
        && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    gate.open();

    assertThat(publishing.get(5, TimeUnit.SECONDS)).hasSize(1);
    closer.join(10_000);
    assertThat(closer.isAlive()).isFalse();
    store.close();

    SqliteStore reopened = new SqliteStore(dir.resolve("wharf.db"));
    reopened.start();
    try {
      assertThat(reopened.queueCounts("q", NOW).ready()).isEqualTo(1);
    } finally {
      reopened.close();
    }
  }

  private static boolean writerAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals("wharf-sqlite-writer") && t.isAlive());
  }

  private static PublishBatch batch(String payload) {
    NewMessage m =
        new NewMessage(ContentType.TEXT, payload.getBytes(), Map.of(), null, NOW, null, null, null);
    return new PublishBatch("q", List.of(m), NOW, NOW);
  }
}
