package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.QueueRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configured page size makes a new file; an existing file keeps the size it was made with. */
class SqlitePageSizeTest {
  @TempDir Path dir;

  @Test
  void newFileTakesThePageSizeAndKeepsItOnReopen() throws Exception {
    Path file = dir.resolve("wharf.db");
    SqliteStore store = new SqliteStore(file, 16384);
    store.start();
    store.queuesPut(new QueueRecord("q", "{}", null));
    store.close();
    assertThat(pageSizeOf(file)).isEqualTo(16384);

    SqliteStore reopened = new SqliteStore(file, 4096);
    reopened.start();
    assertThat(reopened.queuesGet("q")).isPresent();
    reopened.close();
    assertThat(pageSizeOf(file)).isEqualTo(16384);
  }

  @Test
  void defaultIsEightKilobytes() throws Exception {
    Path file = dir.resolve("d.db");
    SqliteStore store = new SqliteStore(file);
    store.start();
    store.close();
    assertThat(pageSizeOf(file)).isEqualTo(8192);
  }

  private static int pageSizeOf(Path file) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA page_size")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
