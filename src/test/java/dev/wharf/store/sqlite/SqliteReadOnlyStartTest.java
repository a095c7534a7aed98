package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.wharf.store.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database file the process may open but not write is refused at start, in one line, rather
 * than served with every write failing. The file is made immutable ({@code chattr +i}), which
 * holds for root too; where that cannot be done the test is skipped.
 */
class SqliteReadOnlyStartTest {
  @TempDir Path dir;

  @Test
  void aFileThatCannotBeWrittenStopsTheStart() throws Exception {
    Path db = dir.resolve("wharf.db");
    SqliteStore made = StartedWithQueue.at(db);
    made.close();
    assumeTrue(chattr("+i", db), "chattr +i is not available here");
    try {
      assertThatThrownBy(() -> new SqliteStore(db).start())
          .isInstanceOf(StoreException.class)
          .hasMessageStartingWith("cannot open " + db + ": the database cannot be written (");
    } finally {
      chattr("-i", db);
    }
    // Writable again, it starts as before.
    SqliteStore again = new SqliteStore(db);
    again.start();
    again.close();
  }

  private static boolean chattr(String flag, Path file) {
    try {
      Process p = new ProcessBuilder("chattr", flag, file.toString())
          .redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.exists(file);
    } catch (Exception e) {
      return false;
    }
  }
}
