package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalFramesTest {
  @TempDir Path dir;

  @Test
  void readsEachCommitsPagesAndNamesTheRoots() throws Exception {
    Path db = dir.resolve("t.db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement s = c.createStatement()) {
      s.execute("PRAGMA page_size = 4096");
      s.execute("PRAGMA journal_mode = WAL");
      s.execute("PRAGMA wal_autocheckpoint = 0");
      s.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)");
      c.setAutoCommit(false);
      for (int i = 0; i < 3; i++) {
        s.execute("INSERT INTO t(v) VALUES (zeroblob(100))");
        c.commit();
      }
      // Not committed: its frames are not a commit.
      s.execute("INSERT INTO t(v) VALUES (zeroblob(100))");
      Files.copy(dir.resolve("t.db-wal"), dir.resolve("copy-wal"));
      c.rollback();
    }
    WalFrames.Commits commits = WalFrames.read(dir.resolve("copy-wal"));
    assertThat(commits.pageSize()).isEqualTo(4096);
    // The CREATE TABLE, then the three inserts.
    assertThat(commits.pages()).hasSize(4);
    Map<Integer, String> roots = WalFrames.roots(db);
    int table = roots.entrySet().stream()
        .filter(e -> e.getValue().equals("table t (root)")).findFirst().orElseThrow().getKey();
    for (int[] insert : commits.pages().subList(1, 4)) {
      assertThat(insert).containsExactly(table);
    }
    assertThat(commits.frames()).isEqualTo(commits.pages().get(0).length + 3);
    assertThat(commits.hottest(1)).containsExactly(Map.entry(table, 1.0));
  }

  @Test
  void refusesAFileThatIsNotAWal() throws Exception {
    Path other = dir.resolve("other");
    Files.write(other, new byte[64]);
    assertThatThrownBy(() -> WalFrames.read(other)).isInstanceOf(IOException.class)
        .hasMessageContaining("not a SQLite WAL file");
  }
}
