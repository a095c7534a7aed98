package dev.wharf.store.sqlite;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.sqlite.SQLiteConfig;

/** Opens every connection of the SQLite backend with the same driver settings. */
final class SqliteConnections {
  private SqliteConnections() {}

  static Connection open(String url) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    // The driver otherwise runs a second query after every INSERT to make its rowid available;
    // Wharf assigns seqs itself and never asks, and that query was a third of an insert's cost.
    config.setGetGeneratedKeys(false);
    return DriverManager.getConnection(url, config.toProperties());
  }
}
