package dev.wharf.store.postgres;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * The oldest PostgreSQL Wharf runs on. The schema's {@code messages.seq} is an identity column,
 * which came with 10; every statement after uses only what 10 has (multi-array {@code unnest},
 * {@code ON CONFLICT}, {@code SKIP LOCKED}, {@code idle_in_transaction_session_timeout}), and
 * the store's tests run on 10 and 13 besides the current release. What came later is used where
 * the server has it ({@link PgSession}, the migrations' vacuum settings).
 */
final class PgVersion {
  static final int OLDEST_MAJOR = 10;

  private PgVersion() {}

  /**
   * Refuses a server older than {@link #OLDEST_MAJOR}, before the migrations would fail on it
   * with a syntax error that names no version. Asks nothing of the server: the driver learned
   * its version at login.
   */
  static void require(Connection c) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    String refusal = refusal(meta.getDatabaseMajorVersion(), meta.getDatabaseProductVersion());
    if (refusal != null) {
      throw new SQLException(refusal);
    }
  }

  /** Why a server of this major version cannot be used, or null when it can. */
  static String refusal(int major, String version) {
    if (major >= OLDEST_MAJOR) {
      return null;
    }
    return "PostgreSQL " + version + " is too old: Wharf needs PostgreSQL " + OLDEST_MAJOR
        + " or later";
  }
}
