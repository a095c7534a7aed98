package dev.wharf.store.sqlite;

import dev.wharf.store.Store;
import dev.wharf.store.StoreContract;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteStoreContractTest extends StoreContract {
  @TempDir Path dir;
  private Path file;

  @Override
  protected void freshDatabase() throws Exception {
    file = Files.createTempFile(dir, "wharf", ".db");
    Files.delete(file);
  }

  @Override
  protected Store openStore() {
    return new SqliteStore(file);
  }
}
