package dev.wharf.store.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The PostgreSQL schema, versioned in {@code schema_version}. Migrations are forward-only and run
 * under a transaction-level advisory lock named after the schema, so when several nodes start at
 * once one migrates and the others wait, then find nothing left to do.
 *
 * <p>Times are epoch milliseconds (the core's injected clock decides them, as with SQLite). {@code
 * seq} is publish order and the lease-id prefix. Partial indexes keep each hot lookup a range scan
 * over the rows of one state. {@code counters} holds depth per (queue, state, origin) split over
 * stripes, so concurrent writers rarely wait on the same counter row. Names and keys compare
 * byte-wise ({@code COLLATE "C"}), as in SQLite, and so index lookups never pay for a locale.
 */
final class PgSchema {
  private static final List<List<String>> MIGRATIONS =
      List.of(
          List.of(
              """
              CREATE TABLE queues(
                name text COLLATE "C" PRIMARY KEY,
                settings text NOT NULL,
                config_hash text)
              """,
              "CREATE TABLE queues_changed(id int PRIMARY KEY, version bigint NOT NULL)",
              "INSERT INTO queues_changed VALUES (1, 0)",
              """
              CREATE TABLE messages(
                -- What a lease or a retry changes comes last, and pages keep room: the new row
                -- version then lands on the same page and the WAL records only the changed tail,
                -- not the payload again.
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id text COLLATE "C" NOT NULL UNIQUE,
                queue text COLLATE "C" NOT NULL,
                content_type smallint NOT NULL,
                published_at bigint NOT NULL,
                payload bytea NOT NULL,
                headers text,
                metadata text,
                msg_key text COLLATE "C",
                expires_at bigint,
                original_queue text COLLATE "C",
                dead_reason text,
                died_at bigint,
                visible_at bigint NOT NULL,
                attempt int NOT NULL,
                state smallint NOT NULL,
                lease_until bigint,
                lease_id text) WITH (fillfactor = 70)
              """,
              // Rows churn (insert, lease, delete): vacuum early, or claims wade through the dead
              // index entries of messages already handed out.
              """
              ALTER TABLE messages SET (autovacuum_vacuum_scale_factor = 0.02,
                autovacuum_analyze_scale_factor = 0.05)
              """,
              // Vacuums counted in inserts came with PostgreSQL 13; an older server refuses the
              // parameter, and vacuums a table for its deletes and updates alone.
              """
              DO $$ BEGIN
                IF current_setting('server_version_num')::int >= 130000 THEN
                  ALTER TABLE messages SET (autovacuum_vacuum_insert_scale_factor = 0.05);
                END IF;
              END $$
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
                queue text COLLATE "C" NOT NULL,
                ikey text COLLATE "C" NOT NULL,
                message_id text NOT NULL,
                expires_at bigint NOT NULL,
                PRIMARY KEY(queue, ikey))
              """,
              "CREATE INDEX idem_expiry ON idempotency(expires_at)",
              """
              CREATE TABLE counters(
                queue text COLLATE "C" NOT NULL,
                state smallint NOT NULL,
                origin text COLLATE "C" NOT NULL,
                stripe smallint NOT NULL,
                n bigint NOT NULL,
                PRIMARY KEY(queue, state, origin, stripe))
              """,
              // A few rows updated by every commit: keep their dead versions few.
              """
              ALTER TABLE counters SET (autovacuum_vacuum_scale_factor = 0,
                autovacuum_vacuum_threshold = 1000)
              """),
          // Version 2: a leased message that a publish with its key could not replace is marked
          // superseded, and deleted instead of made ready again when its lease ends without an
          // ack. The publish finds the key's leased rows through m_key_leased. A column with a
          // constant default is added without rewriting the table (PostgreSQL 11 and later; 10
          // rewrites it, holding the table's lock meanwhile).
          List.of(
              "ALTER TABLE messages ADD COLUMN superseded boolean NOT NULL DEFAULT false",
              """
              CREATE INDEX m_key_leased ON messages(queue, msg_key)
                WHERE msg_key IS NOT NULL AND state = 1
              """));

  private PgSchema() {}

  static int latest() {
    return MIGRATIONS.size();
  }

  /**
   * Makes the schema the connection names ({@code currentSchema} in the URL, or the first entry
   * of {@code search_path}) when it does not exist yet: a URL pointing Wharf at its own schema of
   * a shared database should not need a DBA's step first. Nothing to do when one exists; an
   * error naming the fix when no schema is named at all.
   */
  private static void createNamedSchema(Statement s) throws SQLException {
    String searchPath;
    try (ResultSet rs = s.executeQuery(
        "SELECT current_schema() IS NULL, current_setting('search_path')")) {
      rs.next();
      if (!rs.getBoolean(1)) {
        return;
      }
      searchPath = rs.getString(2);
    }
    String name = firstSchemaOf(searchPath);
    if (name == null) {
      throw new SQLException("no schema to create Wharf's tables in: search_path is \""
          + searchPath + "\"; name one with currentSchema=NAME in the storage URL");
    }
    // Two nodes starting together: one creates it, the other waits here and finds it.
    s.execute("SELECT pg_advisory_xact_lock(hashtext(" + literal(name) + " || '.schema'))");
    s.execute("CREATE SCHEMA IF NOT EXISTS " + identifier(name));
  }

  /** The first schema of a search_path as PostgreSQL reads it, or null for none or "$user". */
  static String firstSchemaOf(String searchPath) {
    String first = searchPath.split(",", -1)[0].trim();
    if (first.isEmpty() || first.equals("\"$user\"") || first.equals("$user")) {
      return null;
    }
    if (first.length() >= 2 && first.startsWith("\"") && first.endsWith("\"")) {
      return first.substring(1, first.length() - 1).replace("\"\"", "\"");
    }
    // Unquoted names are folded to lower case, as PostgreSQL does.
    return first.toLowerCase(java.util.Locale.ROOT);
  }

  private static String identifier(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  private static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  static void migrate(Connection c) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      createNamedSchema(s);
      // Held until commit: a second node starting now waits here, then sees the new version.
      s.execute(
          "SELECT pg_advisory_xact_lock(hashtext(coalesce(current_schema(), '') || '.migrate'))");
      s.execute("CREATE TABLE IF NOT EXISTS schema_version(version int NOT NULL)");
      int version;
      try (ResultSet rs = s.executeQuery("SELECT max(version) FROM schema_version")) {
        version = rs.next() ? rs.getInt(1) : 0;
      }
      if (version > MIGRATIONS.size()) {
        throw new SQLException(
            "database schema version " + version + " is newer than this Wharf knows ("
                + MIGRATIONS.size() + ")");
      }
      for (int v = version; v < MIGRATIONS.size(); v++) {
        for (String ddl : MIGRATIONS.get(v)) {
          s.execute(ddl);
        }
        s.execute("INSERT INTO schema_version VALUES (" + (v + 1) + ")");
      }
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }
}
