package dev.wharf.store.postgres;

import org.junit.jupiter.api.Nested;

/**
 * The store on PostgreSQL 10, the oldest it runs on ({@link PgVersion}), older than the release
 * that brought the session settings of {@link PgSession}: the store's contract, a node frozen
 * inside a transaction, and what it does without those settings.
 */
class Postgres10Test {
  private static PgTestServer server() {
    return OlderPostgres.major(10);
  }

  @Nested
  class Contract extends PostgresStoreContractTest {
    @Override
    PgTestServer server() {
      return Postgres10Test.server();
    }
  }

  @Nested
  class FrozenWriter extends PgFrozenWriterTest {
    @Override
    PgTestServer server() {
      return Postgres10Test.server();
    }
  }

  @Nested
  class WithoutTheNewerSettings extends OlderServerChecks {
    @Override
    PgTestServer server() {
      return Postgres10Test.server();
    }
  }
}
