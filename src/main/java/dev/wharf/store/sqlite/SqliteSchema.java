package dev.wharf.store.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.logging.Logger;

/**
 * The SQLite schema, versioned through {@code PRAGMA user_version}. Migrations are forward-only:
 * a database is taken from whatever version it has to the newest, each step in one transaction.
 *
 * <p>Times are epoch milliseconds. {@code seq} (the rowid) is publish order, the lease-id prefix
 * and, from version 2, the last part of the message id. Partial indexes keep every hot lookup a
 * range scan over just the rows in one state: claims read {@code m_ready} in delivery order, the
 * lease reaper {@code m_leased}.
 *
 * <p>Public only for {@code bench.SqliteFloorBench}, which measures bare SQLite on this schema.
 */
public final class SqliteSchema {
  private static final Logger LOG = Logger.getLogger(SqliteSchema.class.getName());

  /** The messages table's columns; version 1 also had {@code UNIQUE} on {@code id}. */
  private static final String MESSAGE_COLUMNS =
      """
      (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL%s,
        queue TEXT NOT NULL,
        state INTEGER NOT NULL,
        content_type INTEGER NOT NULL,
        payload BLOB NOT NULL,
        headers TEXT,
        metadata TEXT,
        attempt INTEGER NOT NULL,
        published_at INTEGER NOT NULL,
        visible_at INTEGER NOT NULL,
        lease_id TEXT,
        lease_until INTEGER,
        expires_at INTEGER,
        msg_key TEXT,
        original_queue TEXT,
        dead_reason TEXT,
        died_at INTEGER)
      """;

  private static final List<String> MESSAGE_INDEXES =
      List.of(
          "CREATE INDEX m_ready ON messages(queue, visible_at, seq) WHERE state = 0",
          "CREATE INDEX m_leased ON messages(lease_until) WHERE state = 1",
          "CREATE INDEX m_ttl ON messages(expires_at) WHERE expires_at IS NOT NULL AND state < 2",
          "CREATE INDEX m_expired ON messages(expires_at) WHERE state = 2",
          "CREATE INDEX m_key ON messages(queue, msg_key) WHERE msg_key IS NOT NULL AND state = 0",
          """
          CREATE INDEX m_dead ON messages(queue, original_queue, seq)
            WHERE original_queue IS NOT NULL
          """);

  /**
   * The index of the ids written before ids carried their seq, over just those rows (seq up to
   * the highest at the upgrade), so newer rows never enter it. Dropped once those rows are gone.
   */
  static final String LEGACY_ID_INDEX = "m_legacy_id";

  /** One version's step, run in a transaction of its own. */
  private interface Step {
    void apply(Statement s) throws SQLException;
  }

  private static final List<Step> MIGRATIONS =
      List.of(SqliteSchema::version1, SqliteSchema::idsCarrySeq, SqliteSchema::supersededByKey);

  private static void version1(Statement s) throws SQLException {
    s.execute("""
        CREATE TABLE queues(
          name TEXT PRIMARY KEY,
          settings TEXT NOT NULL,
          config_hash TEXT)
        """);
    s.execute("CREATE TABLE messages" + MESSAGE_COLUMNS.formatted(" UNIQUE"));
    for (String ddl : MESSAGE_INDEXES) {
      s.execute(ddl);
    }
    s.execute("""
        CREATE TABLE idempotency(
          queue TEXT NOT NULL,
          ikey TEXT NOT NULL,
          message_id TEXT NOT NULL,
          expires_at INTEGER NOT NULL,
          PRIMARY KEY(queue, ikey)) WITHOUT ROWID
        """);
    s.execute("CREATE INDEX idem_expiry ON idempotency(expires_at)");
  }

  /**
   * Version 2: ids carry the row's seq ({@code MessageIds.sequenced}), so the unique index on the
   * id text goes, which every insert paid for. SQLite cannot drop a column's UNIQUE, so the table
   * is copied; rows already there keep their ids, findable through {@link #LEGACY_ID_INDEX}. A
   * seq must then never be handed out twice: {@code seq_reserved} keeps the highest ever reserved.
   */
  private static void idsCarrySeq(Statement s) throws SQLException {
    long legacyUpTo;
    try (ResultSet rs = s.executeQuery("SELECT coalesce(max(seq), 0) FROM messages")) {
      rs.next();
      legacyUpTo = rs.getLong(1);
    }
    s.execute("CREATE TABLE messages_v2" + MESSAGE_COLUMNS.formatted(""));
    s.execute("INSERT INTO messages_v2 SELECT * FROM messages");
    s.execute("DROP TABLE messages");
    s.execute("ALTER TABLE messages_v2 RENAME TO messages");
    for (String ddl : MESSAGE_INDEXES) {
      s.execute(ddl);
    }
    if (legacyUpTo > 0) {
      s.execute("CREATE INDEX " + LEGACY_ID_INDEX + " ON messages(id) WHERE seq <= " + legacyUpTo);
    }
    // The highest seq ever handed out, or at least reserved: a start goes on past it, so a seq,
    // and with it an id, is never given twice (see GroupCommitWriter).
    s.execute("CREATE TABLE seq_reserved(up_to INTEGER NOT NULL)");
    s.execute("INSERT INTO seq_reserved VALUES (" + legacyUpTo + ")");
  }

  /**
   * Version 3: a leased message that a publish with its key could not replace is marked {@code
   * superseded}, and deleted instead of made ready again when its lease ends without an ack. The
   * publish finds those leased rows by key through {@code m_key_leased}. Added after the copy of
   * version 2, which copies the columns that version knew; only a leased row is ever marked.
   */
  private static void supersededByKey(Statement s) throws SQLException {
    s.execute("ALTER TABLE messages ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0");
    s.execute(
        "CREATE INDEX m_key_leased ON messages(queue, msg_key)"
            + " WHERE msg_key IS NOT NULL AND state = 1");
  }

  private SqliteSchema() {}

  public static void migrate(Connection c) throws SQLException {
    migrate(c, MIGRATIONS.size());
  }

  /** Takes the database up to {@code target} only: tests build older databases with it. */
  static void migrate(Connection c, int target) throws SQLException {
    int version;
    try (Statement s = c.createStatement();
        var rs = s.executeQuery("PRAGMA user_version")) {
      version = rs.next() ? rs.getInt(1) : 0;
    }
    if (version > MIGRATIONS.size()) {
      throw new SQLException(
          "database schema version " + version + " is newer than this Wharf knows ("
              + MIGRATIONS.size() + ")");
    }
    // A fresh file takes every step at once and in no time; an older database's upgrade may copy
    // what it holds, so whoever waits on the start is told why.
    long started = System.nanoTime();
    boolean upgrade = version > 0 && version < target;
    if (upgrade) {
      LOG.info("upgrading the database from schema version " + version + " to " + target
          + ": the messages table is copied or indexed, seconds for every million messages"
          + " queued");
    }
    for (int v = version; v < target; v++) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        MIGRATIONS.get(v).apply(s);
        s.execute("PRAGMA user_version = " + (v + 1));
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
    if (upgrade) {
      LOG.info("database upgraded to schema version " + target + " in "
          + (System.nanoTime() - started) / 1_000_000 + " ms");
    }
  }

  /**
   * The highest seq whose row may hold an id from before ids carried their seq, or 0 when none
   * can. Once every such row is gone, their index is dropped and this is 0 from then on.
   */
  static long legacyIdsUpTo(Connection c) throws SQLException {
    String sql;
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = '"
                    + LEGACY_ID_INDEX + "'")) {
      if (!rs.next()) {
        return 0;
      }
      sql = rs.getString(1);
    }
    // Written by idsCarrySeq as "... WHERE seq <= N"; the bound is read back from there.
    long upTo = Long.parseLong(sql.substring(sql.lastIndexOf("<=") + 2).trim());
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT 1 FROM messages WHERE seq <= " + upTo + " LIMIT 1")) {
      if (rs.next()) {
        return upTo;
      }
    }
    try (Statement s = c.createStatement()) {
      s.execute("DROP INDEX " + LEGACY_ID_INDEX);
    }
    return 0;
  }
}
