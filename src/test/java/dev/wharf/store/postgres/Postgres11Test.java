package dev.wharf.store.postgres;

import org.junit.jupiter.api.Nested;

/**
 * The store on PostgreSQL 11, older than the release that brought the session settings of
 * {@link PgSession}: the store's contract, a node frozen inside a transaction, and what it does
 * without those settings.
 */
class Postgres11Test {
  private static PgTestServer server() {
    return OlderPostgres.major(11);
  }

  @Nested
  class Contract extends PostgresStoreContractTest {
    @Override
    PgTestServer server() {
      return Postgres11Test.server();
    }
  }

  @Nested
  class FrozenWriter extends PgFrozenWriterTest {
    @Override
    PgTestServer server() {
      return Postgres11Test.server();
    }
  }

  @Nested
  class WithoutTheNewerSettings extends OlderServerChecks {
    @Override
    PgTestServer server() {
      return Postgres11Test.server();
    }
  }
}
