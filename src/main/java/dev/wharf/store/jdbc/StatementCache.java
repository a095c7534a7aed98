package dev.wharf.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The statements a writer's connection has prepared, by their SQL text, kept across its
 * transactions: a batch runs the same few statements many times, and a statement prepared once is
 * what lets the driver and the database skip parsing and planning it again.
 */
public final class StatementCache {
  private static final Logger LOG = Logger.getLogger(StatementCache.class.getName());

  private final Connection conn;
  private final Map<String, PreparedStatement> statements = new HashMap<>();

  public StatementCache(Connection conn) {
    this.conn = conn;
  }

  public PreparedStatement prepare(String sql) throws SQLException {
    PreparedStatement ps = statements.get(sql);
    if (ps == null) {
      ps = conn.prepareStatement(sql);
      statements.put(sql, ps);
    }
    return ps;
  }

  /** Closes every statement held, going on past any that fails to close. */
  public void closeAll() {
    for (PreparedStatement ps : statements.values()) {
      try {
        ps.close();
      } catch (SQLException e) {
        LOG.log(Level.FINE, "closing a cached statement", e);
      }
    }
    statements.clear();
  }
}
