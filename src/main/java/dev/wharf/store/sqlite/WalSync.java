package dev.wharf.store.sqlite;

/** Makes committed WAL frames durable; {@link #sync()} returns once they are on disk. */
interface WalSync {
  void sync() throws java.io.IOException;
}
