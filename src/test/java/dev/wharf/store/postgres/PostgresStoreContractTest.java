package dev.wharf.store.postgres;

import dev.wharf.store.Store;
import dev.wharf.store.StoreContract;

class PostgresStoreContractTest extends StoreContract {
  private static String previousSchema;
  private PostgresSettings settings;

  @Override
  protected void freshDatabase() {
    // The last test's stores are closed by now: its schema can go.
    TestDatabase.dropSchema(previousSchema);
    settings = TestDatabase.freshSchema(6);
    previousSchema = TestDatabase.schemaOf(settings);
  }

  @Override
  protected Store openStore() {
    return new PostgresStore(settings);
  }
}
