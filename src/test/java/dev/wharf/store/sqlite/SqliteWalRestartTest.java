package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.Delivery;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.QueueRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under steady load every writer transaction begins before the last checkpoint pass has copied
 * everything back, and SQLite then never starts the WAL over by itself. The writer must.
 */
class SqliteWalRestartTest {
  private static final int BATCHES = 200;
  private static final int PER_BATCH = 100;
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;

  @Test
  void writerStartsTheWalOverUnderSteadyLoad() throws Exception {
    assertThat(largestWalWhilePublishing(64)).isLessThan(2L << 20);
    assertThat(everyMessageAfterReopen()).hasSize(BATCHES * PER_BATCH);
  }

  @Test
  void withoutTheWritersRestartTheWalHoldsEverything() throws Exception {
    // The same load with the writer's restart out of reach: the WAL keeps all ~20 MB. This is
    // what shows the first test's load is the one SQLite cannot handle alone.
    assertThat(largestWalWhilePublishing(Long.MAX_VALUE)).isGreaterThan(16L << 20);
    assertThat(everyMessageAfterReopen()).hasSize(BATCHES * PER_BATCH);
  }

  private long largestWalWhilePublishing(long restartFrames) throws Exception {
    Path wal = dir.resolve("wharf.db-wal");
    byte[] payload = new byte[1024];
    long largest = 0;
    SqliteStore store = new SqliteStore(dir.resolve("wharf.db"), restartFrames);
    // Passes land only inside a transaction, as under load; a background pass between two
    // transactions would let SQLite start the WAL over by itself and hide what is measured.
    store.checkpointOnlyWhenAsked();
    store.start();
    try {
      store.queuesPut(new QueueRecord("q", "{}", null));
      for (int b = 0; b < BATCHES; b++) {
        List<NewMessage> rows = new ArrayList<>();
        for (int i = 0; i < PER_BATCH; i++) {
          rows.add(
              new NewMessage(
                  ContentType.BYTES, payload, Map.of(), null, NOW, null, null, null));
        }
        PublishBatch batch = new PublishBatch("q", rows, NOW, NOW);
        store.writer().submit(tx -> {
          var results = SqlitePublish.publish(tx, batch);
          // A passive pass lands while this transaction is open, as it does under load.
          store.checkpointNow();
          return results;
        });
        largest = Math.max(largest, Files.size(wal));
      }
    } finally {
      store.close();
    }
    return largest;
  }

  private Set<String> everyMessageAfterReopen() {
    SqliteStore store = new SqliteStore(dir.resolve("wharf.db"));
    store.start();
    try {
      Set<String> ids = new HashSet<>();
      while (true) {
        List<Delivery> got = store.messagesClaim(new ClaimRequest("q", 100, NOW, NOW.plusSeconds(60)));
        if (got.isEmpty()) {
          return ids;
        }
        got.forEach(d -> ids.add(d.message().id()));
      }
    } finally {
      store.close();
    }
  }
}
