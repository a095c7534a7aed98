package dev.wharf.store.jdbc;

import dev.wharf.store.LeaseCheck;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.SettleRequest;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The columns of a message row that a settle, a reaper or a redrive decides on, the same for both
 * JDBC backends. {@code superseded}: a newer publish with its key was made while it was leased
 * (set on leased rows only). A row without a lease has {@code leaseUntil} 0.
 */
public record HeldRow(long seq, String queue, int state, String leaseId, long leaseUntil,
    int attempt, String originalQueue, boolean superseded) {

  /** The columns {@link #read} takes, in its order. */
  public static final String COLUMNS =
      "seq, queue, state, lease_id, lease_until, attempt, original_queue, superseded";
  /** How many columns {@link #COLUMNS} selects. */
  public static final int COLUMN_COUNT = 8;

  /**
   * The row a result is on, selected with {@link #COLUMNS} first (or with expressions in their
   * places). A NULL {@code lease_until} reads as 0, as the driver reads any NULL number.
   */
  public static HeldRow read(ResultSet rs) throws SQLException {
    return new HeldRow(rs.getLong(1), rs.getString(2), rs.getInt(3), rs.getString(4),
        rs.getLong(5), rs.getInt(6), rs.getString(7), rs.getBoolean(8));
  }

  /** Every row the statement selects, read as {@link #read} does. */
  public static List<HeldRow> readAll(PreparedStatement ps) throws SQLException {
    List<HeldRow> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(read(rs));
      }
    }
    return out;
  }

  /**
   * {@link LeaseCheck#refusal} of the row a lease id names.
   *
   * @param h null when no row has the lease id's sequence
   */
  public static Outcome refusal(SettleRequest r, String leaseId, HeldRow h) {
    return LeaseCheck.refusal(
        r,
        leaseId,
        h == null ? null : new LeaseCheck.Row(h.queue(), h.state(), h.leaseId(), h.leaseUntil()));
  }

  /** The row as a move to {@code newQueue} leaves it: unleased, attempt 0, not superseded. */
  public HeldRow withQueue(String newQueue, int newState, String newOrigin) {
    return new HeldRow(seq, newQueue, newState, null, 0, 0, newOrigin, false);
  }

  /** The row made ready again in its queue, its attempt changed by {@code attemptChange}. */
  public HeldRow ready(int attemptChange) {
    return new HeldRow(seq, queue, 0, null, 0, Math.max(0, attempt + attemptChange),
        originalQueue, false);
  }
}
