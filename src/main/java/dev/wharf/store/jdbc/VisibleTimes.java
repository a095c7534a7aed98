package dev.wharf.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/**
 * When a queue's delayed messages come due, read alike by the JDBC backends. Each names its
 * messages table as it must be read, with an index hint where its planner needs one.
 */
public final class VisibleTimes {
  private VisibleTimes() {}

  /** The earliest visibleAt after {@code now} among the queue's ready messages. */
  public static Optional<Instant> next(Connection c, String messages, String queue, Instant now)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT min(visible_at) FROM " + messages
                + " WHERE queue = ? AND state = 0 AND visible_at > ?")) {
      ps.setString(1, queue);
      ps.setLong(2, now.toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.ofNullable(MessageRows.instant(rs, 1)) : Optional.empty();
      }
    }
  }

  /** How many ready messages have a visibleAt in (after, upTo], counting at most limit. */
  public static int countBetween(
      Connection c, String messages, String queue, Instant after, Instant upTo, int limit)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT count(*) FROM (SELECT 1 FROM " + messages
                + " WHERE queue = ? AND state = 0 AND visible_at > ? AND visible_at <= ?"
                + " LIMIT ?) due")) {
      ps.setString(1, queue);
      ps.setLong(2, after.toEpochMilli());
      ps.setLong(3, upTo.toEpochMilli());
      ps.setInt(4, limit);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    }
  }
}
