package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reapers run every 100 ms on a table that may hold millions of rows: each of their picks
 * must walk its partial index, also while the statistics still describe the table as it was
 * before a burst of publishes (autovacuum has not analysed it yet). So must a keyed publish's
 * read of the rows of its key.
 */
class PgReapPlanTest {
  private static final int ROWS = 50_000;

  private PostgresSettings settings;
  private PostgresStore store;

  @BeforeEach
  void setUp() throws SQLException {
    settings = TestDatabase.freshSchema(2);
    store = new PostgresStore(settings);
    store.start();
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      // Statistics of the empty table, then a burst: what a busy node looks like to the planner.
      s.execute("ALTER TABLE messages SET (autovacuum_enabled = false)");
      s.execute("ALTER TABLE idempotency SET (autovacuum_enabled = false)");
      s.execute("ANALYZE messages");
      s.execute("ANALYZE idempotency");
      s.execute(
          "INSERT INTO messages(id, queue, content_type, published_at, payload, visible_at,"
              + " attempt, state)"
              + " SELECT 'm' || g, 'q', 0, 1, '\\x00', 1, 0, 0 FROM generate_series(1, "
              + ROWS + ") g");
      s.execute(
          "INSERT INTO idempotency(queue, ikey, message_id, expires_at)"
              + " SELECT 'q', 'k' || g, 'm' || g, 9000000000000 FROM generate_series(1, "
              + ROWS + ") g");
    }
  }

  @AfterEach
  void tearDown() {
    store.close();
    TestDatabase.dropSchema(TestDatabase.schemaOf(settings));
  }

  @Test
  void everyReaperPickUsesItsIndex() throws SQLException {
    for (String sql :
        new String[] {
          PgReap.DUE_LEASES, PgReap.DUE_TTL, PgReap.DELETE_EXPIRED, PgReap.PRUNE_IDEMPOTENCY
        }) {
      assertThat(plan(sql, 1_000)).as(sql).doesNotContain("Seq Scan");
    }
    assertThat(plan(PgReap.EXPIRE_BY_SEQ, null)).doesNotContain("Seq Scan");
  }

  @Test
  void aKeyedPublishFindsTheKeysRowsThroughItsIndexes() throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement("EXPLAIN " + PgPublish.KEY_ROWS)) {
      ps.setString(1, "q");
      ps.setString(2, "k");
      StringBuilder out = new StringBuilder();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.append(rs.getString(1)).append('\n');
        }
      }
      assertThat(out.toString()).doesNotContain("Seq Scan").contains("m_key_leased");
    }
  }

  /** The plan of a reaper statement; {@code limit} null means it takes an array of keys. */
  private String plan(String sql, Integer limit) throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
      if (limit == null) {
        ps.setArray(1, c.createArrayOf("bigint", new Object[] {1L, 2L, 3L}));
      } else {
        ps.setLong(1, 1_000);
        ps.setInt(2, limit);
      }
      StringBuilder out = new StringBuilder();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.append(rs.getString(1)).append('\n');
        }
      }
      return out.toString();
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(settings.url());
  }
}
