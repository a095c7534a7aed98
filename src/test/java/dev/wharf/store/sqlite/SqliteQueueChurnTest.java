package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.ContentType;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.QueueGone;
import dev.wharf.store.QueueRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server runs for months while queues are made and deleted: what the writer keeps to refuse
 * writes into deleted queues must not grow with every name that was ever deleted.
 */
class SqliteQueueChurnTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;

  @Test
  void queuesMadeAndDeletedLeaveNoNamesBehindInTheWriter() {
    SqliteStore store = new SqliteStore(dir.resolve("wharf.db"));
    store.start();
    try {
      store.queuesPut(new QueueRecord("kept", "{}", null));
      for (int i = 0; i < 500; i++) {
        String q = "churn-" + i;
        store.queuesPut(new QueueRecord(q, "{}", null));
        store.messagesPublish(batch(q));
        store.queuesDelete(q);
      }
      int held = store.writer().submit(WriterTx::queueNamesHeld);
      assertThat(held).isEqualTo(1);
      // Still refused once deleted, and taken once made again.
      assertThatThrownBy(() -> store.messagesPublish(batch("churn-7")))
          .isInstanceOf(QueueGone.class);
      store.queuesPut(new QueueRecord("churn-7", "{}", null));
      assertThat(store.messagesPublish(batch("churn-7"))).hasSize(1);
    } finally {
      store.close();
    }
  }

  @Test
  void aQueueWithNoRowTakesNoWritesAndOneStoredBeforeAStartDoes() {
    Path db = dir.resolve("wharf.db");
    SqliteStore first = StartedWithQueue.at(db);
    first.close();
    SqliteStore store = new SqliteStore(db);
    store.start();
    try {
      assertThat(store.messagesPublish(batch("q"))).hasSize(1);
      assertThatThrownBy(() -> store.messagesPublish(batch("never-made")))
          .isInstanceOf(QueueGone.class);
    } finally {
      store.close();
    }
  }

  private static PublishBatch batch(String queue) {
    NewMessage m =
        new NewMessage(ContentType.TEXT, "x".getBytes(), Map.of(), null, NOW, null, null, null);
    return new PublishBatch(queue, List.of(m), NOW, NOW.plusSeconds(60));
  }
}
