package dev.wharf.store.sqlite;

import dev.wharf.store.QueueRecord;
import java.nio.file.Path;

/** A database file for tests about opening one: started, given queue {@code q}, left open. */
final class StartedWithQueue {
  private StartedWithQueue() {}

  static SqliteStore at(Path db) {
    SqliteStore store = new SqliteStore(db);
    store.start();
    store.queuesPut(new QueueRecord("q", "{}", null));
    return store;
  }
}
