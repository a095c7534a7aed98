package dev.wharf.store.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** What a test asks of one PostgreSQL session: its backend and the settings it runs with. */
final class SessionProbe {
  private SessionProbe() {}

  static int backendPid(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  static String setting(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('" + name + "')")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
