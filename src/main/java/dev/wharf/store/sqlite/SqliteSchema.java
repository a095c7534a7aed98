package dev.wharf.store.sqlite;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The SQLite schema, versioned through {@code PRAGMA user_version}. Migrations are forward-only:
 * a database is taken from whatever version it has to the newest, each step in one transaction.
 *
 * <p>Times are epoch milliseconds. {@code seq} (the rowid) is publish order and the lease-id
 * prefix. Partial indexes keep every hot lookup a range scan over just the rows in one state:
 * claims read {@code m_ready} in delivery order, the lease reaper {@code m_leased}.
 *
 * <p>Public only for {@code bench.SqliteFloorBench}, which measures bare SQLite on this schema.
 */
public final class SqliteSchema {
  private static final List<List<String>> MIGRATIONS =
      List.of(
          List.of(
              """
              CREATE TABLE queues(
                name TEXT PRIMARY KEY,
                settings TEXT NOT NULL,
                config_hash TEXT)
              """,
              """
              CREATE TABLE messages(
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
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
              """,
              "CREATE INDEX m_ready ON messages(queue, visible_at, seq) WHERE state = 0",
              "CREATE INDEX m_leased ON messages(lease_until) WHERE state = 1",
              "CREATE INDEX m_ttl ON messages(expires_at) WHERE expires_at IS NOT NULL AND state < 2",
              "CREATE INDEX m_expired ON messages(expires_at) WHERE state = 2",
              "CREATE INDEX m_key ON messages(queue, msg_key) WHERE msg_key IS NOT NULL AND state = 0",
              """
              CREATE INDEX m_dead ON messages(queue, original_queue, seq)
                WHERE original_queue IS NOT NULL
              """,
              """
              CREATE TABLE idempotency(
                queue TEXT NOT NULL,
                ikey TEXT NOT NULL,
                message_id TEXT NOT NULL,
                expires_at INTEGER NOT NULL,
                PRIMARY KEY(queue, ikey)) WITHOUT ROWID
              """,
              "CREATE INDEX idem_expiry ON idempotency(expires_at)"));

  private SqliteSchema() {}

  public static void migrate(Connection c) throws SQLException {
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
    for (int v = version; v < MIGRATIONS.size(); v++) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        for (String ddl : MIGRATIONS.get(v)) {
          s.execute(ddl);
        }
        s.execute("PRAGMA user_version = " + (v + 1));
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }
}
