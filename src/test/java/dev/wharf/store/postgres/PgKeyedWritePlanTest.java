package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The statements that change the rows of a seq array (a claim's lease, an ack, a settle's or a
 * reaper pass's changes, a redrive, a key's supersede) must reach those rows through the primary
 * key, also while the statistics still describe the table as it was before a burst of publishes.
 * With the state guard written as a plain {@code state = 0} the planner took the partial index of
 * ready rows, which it believed empty, read it whole into a hash and joined the array to it: on a
 * fresh database with 2,000 messages waiting, every batch-1 claim read 2,000 index entries, and
 * consumers took ~300 messages a second.
 */
class PgKeyedWritePlanTest {
  private static final int ROWS = 2_000;

  private static PostgresSettings settings;
  private static PostgresStore store;

  @BeforeAll
  static void setUp() throws SQLException {
    settings = TestDatabase.freshSchema(2);
    store = new PostgresStore(settings);
    store.start();
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      // Statistics of the empty table, then a burst: what a busy node looks like to the planner
      // before autovacuum comes by.
      s.execute("ALTER TABLE messages SET (autovacuum_enabled = false)");
      s.execute("ANALYZE messages");
      insert(s, 1, ROWS);
    }
  }

  /** Ready rows r{from..to} and leased rows l{from..to}, all of queue q. */
  private static void insert(Statement s, int from, int to) throws SQLException {
    s.execute(
        "INSERT INTO messages(id, queue, content_type, published_at, payload, visible_at,"
            + " attempt, state)"
            + " SELECT 'r' || g, 'q', 0, 1, '\\x00', 1, 0, 0 FROM generate_series(" + from + ", "
            + to + ") g");
    s.execute(
        "INSERT INTO messages(id, queue, content_type, published_at, payload, visible_at,"
            + " attempt, state, lease_id, lease_until)"
            + " SELECT 'l' || g, 'q', 0, 1, '\\x00', 1, 1, 1, 'l' || g, 9000000000000"
            + " FROM generate_series(" + from + ", " + to + ") g");
  }

  @AfterAll
  static void tearDown() {
    store.close();
    TestDatabase.dropSchema(TestDatabase.schemaOf(settings));
  }

  @Test
  void aClaimsLeaseFindsItsRowsByKey() throws SQLException {
    assertByKey(PgClaim.LEASE, "int8");
  }

  @Test
  void anAckFindsItsRowsByKey() throws SQLException {
    assertByKey(PgSettle.ACK_CURRENT, "text", "int8");
  }

  @Test
  void aSettlesChangesFindTheirRowsByKey() throws SQLException {
    assertByKey(PgChanges.DELETE_ROWS);
    assertByKey(PgChanges.READY_ROWS);
    assertByKey(PgChanges.DEAD_ROWS, "int8", "int8");
    assertByKey(PgChanges.EXTEND_ROWS);
  }

  @Test
  void aRedriveFindsItsRowsByKey() throws SQLException {
    assertByKey(PgChanges.REDRIVE_ROWS, "int8");
  }

  @Test
  void aSupersedeFindsItsRowsByKey() throws SQLException {
    assertByKey(PgPublish.SUPERSEDE_LEASED);
  }

  /**
   * EXPLAINs {@code sql} with arrays of a few seqs and checks that the messages it changes are
   * reached through the primary key alone.
   */
  private static void assertByKey(String sql, String... scalars) throws SQLException {
    String plan = explain(sql, scalars);
    assertThat(plan).as(sql + "\n" + plan)
        .contains("messages_pkey")
        .doesNotContain("m_ready")
        .doesNotContain("m_leased")
        .doesNotContain("Seq Scan on messages");
  }

  /**
   * Binds each {@code ?} of {@code sql}: one cast to an array ({@code ?::T[]}) gets three values
   * of that type; the others, in order, a value of the type {@code scalars} names ("int8" or
   * "text").
   */
  private static String explain(String sql, String... scalars) throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
      Matcher m = Pattern.compile("\\?(::(\\w+)\\[\\])?").matcher(sql);
      int param = 0;
      int scalar = 0;
      while (m.find()) {
        param++;
        if (m.group(2) != null) {
          ps.setArray(param, c.createArrayOf(m.group(2), sample(m.group(2))));
        } else if (scalars[scalar++].equals("text")) {
          ps.setString(param, "q");
        } else {
          ps.setLong(param, 1_000);
        }
      }
      assertThat(scalar).as("scalars bound").isEqualTo(scalars.length);
      StringBuilder out = new StringBuilder();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.append(rs.getString(1)).append('\n');
        }
      }
      return out.toString();
    }
  }

  private static Object[] sample(String type) {
    return switch (type) {
      case "int8" -> new Object[] {10L, 20L, ROWS + 30L};
      case "int4" -> new Object[] {1, 1, 1};
      default -> new Object[] {"a", "b", "c"};
    };
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(settings.url());
  }
}
