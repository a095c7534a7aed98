package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ContentType;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.QueueRecord;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A passive pass that copies pages into the database file syncs that file itself: SQLite does
 * only after a pass that copies the whole WAL, which under steady load none does, and the pages
 * would otherwise wait for the writer's WAL restart to sync them all while it holds the writer.
 */
class SqliteCheckpointSyncTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;

  @Test
  void aPassThatCopiedPagesSyncsTheDatabaseFileAndOneThatCopiedNoneDoesNot() {
    SqliteStore store =
        new SqliteStore(
            dir.resolve("wharf.db"), Checkpointer.restartFrames(SqliteStore.DEFAULT_PAGE_SIZE));
    store.checkpointOnlyWhenAsked();
    store.start();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    store.bindMetrics(registry);
    try {
      store.queuesPut(new QueueRecord("q", "{}", null));
      store.checkpointNow();
      double before = syncs(registry);

      NewMessage m =
          new NewMessage(ContentType.BYTES, new byte[1024], Map.of(), null, NOW, null, null, null);
      store.messagesPublish(new PublishBatch("q", Collections.nCopies(20, m), NOW, NOW));
      store.checkpointNow();
      assertThat(syncs(registry)).isEqualTo(before + 1);

      store.checkpointNow();
      assertThat(syncs(registry)).as("a pass with nothing new to copy").isEqualTo(before + 1);
    } finally {
      store.close();
    }
  }

  private static double syncs(SimpleMeterRegistry registry) {
    return registry.get("wharf_sqlite_db_fsync").functionTimer().count();
  }
}
