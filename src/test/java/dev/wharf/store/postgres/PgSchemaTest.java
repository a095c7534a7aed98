package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** Where the tables go: the schema the URL names, made when it is missing. */
class PgSchemaTest {
  @Test
  void theFirstSchemaOfASearchPathIsReadAsPostgresqlReadsIt() {
    assertThat(PgSchema.firstSchemaOf("wharf")).isEqualTo("wharf");
    assertThat(PgSchema.firstSchemaOf("Wharf, public")).isEqualTo("wharf");
    assertThat(PgSchema.firstSchemaOf("\"My \"\"Q\"\"\", public")).isEqualTo("My \"Q\"");
    assertThat(PgSchema.firstSchemaOf("\"$user\", public")).isNull();
    assertThat(PgSchema.firstSchemaOf("")).isNull();
  }

  @Test
  void aSchemaNamedInTheUrlIsMadeWhenMissing() {
    String schema = "wharf_t_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
    PostgresSettings settings = TestDatabase.settingsFor(schema, 2);
    try {
      assertThat(TestDatabase.query(
          "SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'")).isZero();
      PostgresStore store = new PostgresStore(settings);
      store.start();
      try {
        assertThat(store.unready()).isNull();
        assertThat(store.queuesList()).isEmpty();
      } finally {
        store.close();
      }
      assertThat(TestDatabase.query("SELECT count(*) FROM pg_tables WHERE schemaname = '"
          + schema + "' AND tablename = 'messages'")).isEqualTo(1);
      // A second start finds it made.
      PostgresStore again = new PostgresStore(settings);
      again.start();
      again.close();
    } finally {
      TestDatabase.dropSchema(schema);
    }
  }

  /** Vacuums counted in inserts, on 13 and later (OlderServerChecks sees them left out before). */
  @Test
  void theMessagesTableVacuumsEarlyForItsInsertsToo() {
    assumeTrue(TestDatabase.query("SELECT current_setting('server_version_num')::int") >= 130_000);
    PostgresSettings settings = TestDatabase.freshSchema(2);
    String schema = TestDatabase.schemaOf(settings);
    PostgresStore store = new PostgresStore(settings);
    store.start();
    try {
      assertThat(TestDatabase.query("SELECT count(*) FROM pg_class WHERE relname = 'messages'"
          + " AND relnamespace = '" + schema + "'::regnamespace AND reloptions @> ARRAY["
          + "'autovacuum_vacuum_scale_factor=0.02', 'autovacuum_vacuum_insert_scale_factor=0.05',"
          + " 'autovacuum_analyze_scale_factor=0.05']")).isEqualTo(1);
    } finally {
      store.close();
      TestDatabase.dropSchema(schema);
    }
  }

  /**
   * One of Wharf's tables gone (renamed by hand, say) fails every publish or receive, so the node
   * is not ready either, however well the others read; it is again once the table is back.
   */
  @Test
  void readinessNeedsEveryTable() {
    PostgresSettings settings = TestDatabase.freshSchema(2);
    String schema = TestDatabase.schemaOf(settings);
    PostgresStore store = new PostgresStore(settings);
    store.start();
    try {
      assertThat(store.unready()).isNull();
      for (String table : new String[] {"messages", "counters", "queues", "idempotency"}) {
        TestDatabase.server().execute(
            "ALTER TABLE \"" + schema + "\"." + table + " RENAME TO " + table + "_away");
        assertThat(store.unready()).as(table)
            .startsWith("storage is not answering: ")
            .contains("\"" + table + "\" does not exist");
        TestDatabase.server().execute(
            "ALTER TABLE \"" + schema + "\"." + table + "_away RENAME TO " + table);
        assertThat(store.unready()).as(table + " back").isNull();
      }
    } finally {
      store.close();
      TestDatabase.dropSchema(schema);
    }
  }

  /** A database that answers without Wharf's tables (dropped under it) is not ready. */
  @Test
  void readinessNeedsTheTablesNotJustAConnection() throws Exception {
    PostgresSettings settings = TestDatabase.freshSchema(2);
    String schema = TestDatabase.schemaOf(settings);
    PostgresStore store = new PostgresStore(settings);
    store.start();
    try {
      assertThat(store.unready()).isNull();
      dropAndMakeAgain(schema);
      assertThat(store.unready())
          .startsWith("storage is not answering: ")
          .contains("does not exist")
          .doesNotContain("\n");
    } finally {
      store.close();
      TestDatabase.dropSchema(schema);
    }
  }

  /**
   * The store's own connections (its listener's poll, its reaper lock) run meanwhile, and
   * PostgreSQL may pick the drop as a deadlock's victim: it is tried again, as an operator would.
   */
  private static void dropAndMakeAgain(String schema) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try (Connection c = DriverManager.getConnection(TestDatabase.baseUrl());
          Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        s.execute("DROP SCHEMA " + schema + " CASCADE");
        s.execute("CREATE SCHEMA " + schema);
        c.commit();
        return;
      } catch (SQLException e) {
        // 40P01: deadlock_detected.
        if (!"40P01".equals(e.getSQLState()) || attempt == 10) {
          throw e;
        }
      }
    }
  }
}
