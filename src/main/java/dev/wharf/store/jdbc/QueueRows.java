package dev.wharf.store.jdbc;

import dev.wharf.store.QueueRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reading queue records, the same for both JDBC backends: they keep the same queues table. */
public final class QueueRows {
  private static final String SELECT = "SELECT name, settings, config_hash FROM queues";

  private QueueRows() {}

  /** Every queue record, by name. */
  public static List<QueueRecord> list(Connection c) throws SQLException {
    List<QueueRecord> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(SELECT + " ORDER BY name");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(record(rs));
      }
    }
    return out;
  }

  /** The record of the queue {@code name}, if there is one. */
  public static Optional<QueueRecord> get(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SELECT + " WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(record(rs)) : Optional.empty();
      }
    }
  }

  private static QueueRecord record(ResultSet rs) throws SQLException {
    return new QueueRecord(rs.getString(1), rs.getString(2), rs.getString(3));
  }
}
