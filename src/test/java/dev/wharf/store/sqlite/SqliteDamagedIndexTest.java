package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ContentType;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database whose index the count at start cannot read: the store opens (reads of what is
 * intact still answer), but it says it is not ready, and why, instead of serving as if whole.
 */
class SqliteDamagedIndexTest {
  @TempDir Path dir;

  @Test
  void aCountThatFailsAtStartKeepsTheStoreUnready() throws Exception {
    Path db = dir.resolve("wharf.db");
    SqliteStore made = StartedWithQueue.at(db);
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      messages.add(new NewMessage(ContentType.JSON, ("" + i).getBytes(StandardCharsets.UTF_8),
          Map.of(), null, now, null, null, null));
    }
    made.messagesPublish(new PublishBatch("q", messages, now, now.plus(Duration.ofDays(1))));
    assertThat(made.unready()).isNull();
    made.close();

    long root;
    int pageSize;
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement s = c.createStatement()) {
      try (ResultSet rs =
          s.executeQuery("SELECT rootpage FROM sqlite_master WHERE name = 'm_ready'")) {
        rs.next();
        root = rs.getLong(1);
      }
      try (ResultSet rs = s.executeQuery("PRAGMA page_size")) {
        rs.next();
        pageSize = rs.getInt(1);
      }
    }
    try (RandomAccessFile f = new RandomAccessFile(db.toFile(), "rw")) {
      f.seek((root - 1) * pageSize);
      byte[] junk = new byte[pageSize];
      java.util.Arrays.fill(junk, (byte) 0xde);
      f.write(junk);
    }

    SqliteStore damaged = new SqliteStore(db);
    damaged.start();
    try {
      String why = null;
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (why == null && System.nanoTime() < deadline) {
        why = damaged.unready();
        Thread.onSpinWait();
      }
      assertThat(why).startsWith("the messages on disk could not be counted at start: ");
    } finally {
      damaged.close();
    }
  }
}
