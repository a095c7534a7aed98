package dev.wharf.store.sqlite;

import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.JDBC;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.SQLiteOpenMode;

/** Opens every connection of the SQLite backend with the same driver settings. */
final class SqliteConnections {
  private SqliteConnections() {}

  static Connection open(String url) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    // The driver otherwise runs a second query after every INSERT to make its rowid available;
    // Wharf assigns seqs itself and never asks, and that query was a third of an insert's cost.
    config.setGetGeneratedKeys(false);
    // The driver already serialises every call on a connection, and each connection here is used
    // by one thread at a time; SQLite's own per-call connection mutex only adds a lock and an
    // unlock to every bind, step and column read.
    config.setOpenMode(SQLiteOpenMode.NOMUTEX);
    // Straight to the driver: DriverManager would first load and register every JDBC driver on
    // the class path, which a start then waits for.
    return JDBC.createConnection(url, config.toProperties());
  }

  /**
   * Extracts and loads the driver's native library now (the slowest part of opening the first
   * connection), so a start can do it on another core. Failures are left for {@link #open}.
   */
  static void loadNativeLibrary() {
    try {
      SQLiteJDBCLoader.initialize();
    } catch (Exception | LinkageError e) {
      // open() reports it, with the file it was opening
    }
  }
}
