package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.QueueRecord;
import dev.wharf.store.StoreException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteOwnerLockTest {
  @TempDir Path dir;

  @Test
  void aSecondStoreOnTheSameFileIsRefusedUntilTheFirstCloses() {
    Path db = dir.resolve("wharf.db");
    SqliteStore first = new SqliteStore(db);
    first.start();
    try {
      first.queuesPut(new QueueRecord("q", "{}", null));
      assertThatThrownBy(() -> new SqliteStore(db).start())
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("another Wharf process is using " + db);
    } finally {
      first.close();
    }
    SqliteStore second = new SqliteStore(db);
    second.start();
    try {
      assertThat(second.queuesGet("q")).isPresent();
    } finally {
      second.close();
    }
  }

  @Test
  void aPathThatIsALinkOpensItsTargetAndSharesItsLock() throws Exception {
    Path db = dir.resolve("wharf.db");
    SqliteStore made = StartedWithQueue.at(db);
    made.close();
    Path link = java.nio.file.Files.createSymbolicLink(dir.resolve("link.db"), db);
    SqliteStore viaLink = new SqliteStore(link);
    viaLink.start();
    try {
      assertThat(viaLink.queuesGet("q")).isPresent();
      assertThatThrownBy(() -> new SqliteStore(db).start())
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("another Wharf process is using");
    } finally {
      viaLink.close();
    }
  }

  @Test
  void aLinkToAFileNotYetMadeMakesItAndLocksIt() throws Exception {
    Path target = dir.resolve("target.db");
    Path link = java.nio.file.Files.createSymbolicLink(dir.resolve("link.db"), target);
    SqliteStore viaLink = new SqliteStore(link);
    viaLink.start();
    try {
      assertThat(target).exists();
      assertThatThrownBy(() -> new SqliteStore(target).start())
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("another Wharf process is using");
    } finally {
      viaLink.close();
    }
  }
}
