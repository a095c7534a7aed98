package dev.wharf.store.postgres;

import dev.wharf.store.jdbc.MessageRows;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The few columns a settle or reaper reads; whole messages are read by {@link MessageRows}. */
final class PgRows {
  /** The columns a settle or reaper needs to decide about a row. */
  static final String HELD =
      "seq, queue, state, lease_id, lease_until, attempt, original_queue, superseded";
  /** How many columns {@link #HELD} selects. */
  static final int HELD_COLUMNS = 8;

  private PgRows() {}

  static PgHeld held(ResultSet rs) throws SQLException {
    long until = rs.getLong(5);
    return new PgHeld(rs.getLong(1), rs.getString(2), rs.getInt(3), rs.getString(4),
        rs.wasNull() ? 0 : until, rs.getInt(6), rs.getString(7), rs.getBoolean(8));
  }
}
