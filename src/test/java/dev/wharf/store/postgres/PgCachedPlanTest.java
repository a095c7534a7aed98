package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node's sessions plan each run of a statement for its own arguments and the table as it is.
 * PostgreSQL otherwise plans a statement a session has run five times once for any arguments
 * (a generic plan) when that looks no dearer, and keeps that plan until the table's statistics
 * change. Made while the table was nearly empty, a claim's lease then read the whole table for
 * each row it leased once a burst of publishes had filled it, until autovacuum came by.
 */
class PgCachedPlanTest {
  private PostgresSettings settings;
  private PostgresStore store;

  @BeforeEach
  void setUp() {
    settings = TestDatabase.freshSchema(2);
    store = new PostgresStore(settings);
    store.start();
  }

  @AfterEach
  void tearDown() {
    store.close();
    TestDatabase.dropSchema(TestDatabase.schemaOf(settings));
  }

  @Test
  void aLeaseRunOftenOnAnEmptyTableIsPlannedAnewOnceItFills() throws SQLException {
    try (Connection c = store.connect();
        Statement s = c.createStatement()) {
      s.execute("ALTER TABLE messages SET (autovacuum_enabled = false)");
      s.execute("ANALYZE messages");
      s.execute("PREPARE lease(bigint, int8[], text[]) AS " + numbered(PgClaim.LEASE));
      for (int i = 0; i < 8; i++) {
        s.execute("EXECUTE lease(1, '{1,2,3}', '{a,b,c}')");
      }
      s.execute(
          "INSERT INTO messages(id, queue, content_type, published_at, payload, visible_at,"
              + " attempt, state)"
              + " SELECT 'r' || g, 'q', 0, 1, '\\x00', 1, 0, 0 FROM generate_series(1, 20000) g");
      String plan = explain(s, "EXPLAIN EXECUTE lease(1, '{10,20,30}', '{a,b,c}')");
      assertThat(plan).as(plan).contains("messages_pkey").doesNotContain("Seq Scan");
    }
  }

  private static String explain(Statement s, String sql) throws SQLException {
    StringBuilder out = new StringBuilder();
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.append(rs.getString(1)).append('\n');
      }
    }
    return out.toString();
  }

  /** {@code sql} with its {@code ?} numbered as PREPARE takes them. */
  private static String numbered(String sql) {
    StringBuilder out = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      if (ch == '?') {
        out.append('$').append(++n);
      } else {
        out.append(ch);
      }
    }
    return out.toString();
  }
}
