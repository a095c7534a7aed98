package dev.wharf.store.sqlite;

import dev.wharf.store.MessageState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The SQL of deleting a queue's messages. Every state is reached through its partial index, never
 * a scan of the whole table, and ready messages in chunks, each its own writer transaction.
 */
final class SqliteQueueDeletion {
  private SqliteQueueDeletion() {}

  /**
   * Deletes a queue's messages published up to seq {@code upTo}, ready ones first, then leased and
   * expired ones, {@code chunk} to a writer transaction; returns how many.
   */
  static long inChunks(GroupCommitWriter writer, String queue, long upTo, int chunk) {
    long deleted = 0;
    int n;
    do {
      n = writer.submitFreeingRoom(tx -> deleteReady(tx, queue, upTo, chunk));
      deleted += n;
    } while (n == chunk);
    do {
      n = writer.submitFreeingRoom(tx -> deleteNotReady(tx, queue, upTo, chunk));
      deleted += n;
    } while (n == chunk);
    return deleted;
  }

  /**
   * Deletes up to {@code limit} of a queue's ready messages published up to seq {@code upTo},
   * oldest first; returns how many.
   */
  static int deleteReady(WriterTx tx, String queue, long upTo, int limit) throws SQLException {
    // Leases held in memory are ready rows to the index: written back, they are leased rows.
    tx.leases.writeBackQueue(tx, queue);
    String chunk =
        "SELECT seq FROM messages INDEXED BY m_ready WHERE queue = ? AND state = 0 AND seq <= ?"
            + " ORDER BY visible_at, seq LIMIT ?";
    PreparedStatement count =
        tx.prepare(
            "SELECT original_queue, count(*) FROM messages WHERE seq IN (" + chunk + ") GROUP BY 1");
    count.setString(1, queue);
    count.setLong(2, upTo);
    count.setInt(3, limit);
    try (ResultSet rs = count.executeQuery()) {
      while (rs.next()) {
        tx.delta.add(queue, MessageState.READY.code(), rs.getString(1), -rs.getLong(2));
      }
    }
    PreparedStatement del = tx.prepare("DELETE FROM messages WHERE seq IN (" + chunk + ")");
    del.setString(1, queue);
    del.setLong(2, upTo);
    del.setInt(3, limit);
    return del.executeUpdate();
  }

  /**
   * Deletes up to {@code limit} of a queue's leased and expired messages published up to seq
   * {@code upTo}, counting them out; returns how many. Each state is reached through its own
   * partial index.
   */
  static int deleteNotReady(WriterTx tx, String queue, long upTo, int limit) throws SQLException {
    tx.leases.writeBackQueue(tx, queue);
    String[] byIndex = {
      "SELECT seq FROM messages INDEXED BY m_leased WHERE state = 1 AND queue = ? AND seq <= ?"
          + " LIMIT ?",
      "SELECT seq FROM messages INDEXED BY m_expired WHERE state = 2 AND queue = ? AND seq <= ?"
          + " LIMIT ?"
    };
    int deleted = 0;
    for (String rows : byIndex) {
      int left = limit - deleted;
      if (left == 0) {
        break;
      }
      PreparedStatement count =
          tx.prepare(
              "SELECT state, original_queue, count(*) FROM messages WHERE seq IN (" + rows + ")"
                  + " GROUP BY 1, 2");
      count.setString(1, queue);
      count.setLong(2, upTo);
      count.setInt(3, left);
      try (ResultSet rs = count.executeQuery()) {
        while (rs.next()) {
          tx.delta.add(queue, rs.getInt(1), rs.getString(2), -rs.getLong(3));
        }
      }
      PreparedStatement del = tx.prepare("DELETE FROM messages WHERE seq IN (" + rows + ")");
      del.setString(1, queue);
      del.setLong(2, upTo);
      del.setInt(3, left);
      deleted += del.executeUpdate();
    }
    return deleted;
  }

  /**
   * Deletes what is left of a queue, in any state, in the transaction that deletes the queue: what
   * was published or leased after the chunks before it went.
   */
  static void deleteRest(WriterTx tx, String queue) throws SQLException {
    tx.leases.writeBackQueue(tx, queue);
    String[] byIndex = {
      "DELETE FROM messages WHERE seq IN (SELECT seq FROM messages INDEXED BY m_ready"
          + " WHERE queue = ? AND state = 0)",
      "DELETE FROM messages WHERE seq IN (SELECT seq FROM messages INDEXED BY m_leased"
          + " WHERE state = 1 AND queue = ?)",
      "DELETE FROM messages WHERE seq IN (SELECT seq FROM messages INDEXED BY m_expired"
          + " WHERE state = 2 AND queue = ?)"
    };
    for (String sql : byIndex) {
      PreparedStatement ps = tx.prepare(sql);
      ps.setString(1, queue);
      ps.executeUpdate();
    }
  }
}
