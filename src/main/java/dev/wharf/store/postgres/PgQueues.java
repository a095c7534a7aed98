package dev.wharf.store.postgres;

import dev.wharf.store.QueueRecord;
import dev.wharf.store.jdbc.HeldRow;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The SQL of queue records and of removing messages by hand (purge, delete one). Changes to
 * queues mark the transaction so every node reloads its settings.
 */
final class PgQueues {
  private PgQueues() {}

  static int put(PgTx tx, QueueRecord q) throws SQLException {
    PreparedStatement ps =
        tx.prepare(
            "INSERT INTO queues(name, settings, config_hash) VALUES (?, ?, ?)"
                + " ON CONFLICT (name) DO UPDATE SET settings = EXCLUDED.settings,"
                + " config_hash = EXCLUDED.config_hash");
    ps.setString(1, q.name());
    ps.setString(2, q.settingsJson());
    ps.setString(3, q.configHash());
    tx.queuesChanged = true;
    return ps.executeUpdate();
  }

  static boolean putIf(PgTx tx, QueueRecord q, String expectedSettings) throws SQLException {
    PreparedStatement ps;
    if (expectedSettings == null) {
      ps = tx.prepare(
          "INSERT INTO queues(name, settings, config_hash) VALUES (?, ?, ?)"
              + " ON CONFLICT (name) DO NOTHING");
      ps.setString(1, q.name());
      ps.setString(2, q.settingsJson());
      ps.setString(3, q.configHash());
    } else {
      // The row's lock orders two such updates: the later one sees the first's settings.
      ps = tx.prepare(
          "UPDATE queues SET settings = ?, config_hash = ? WHERE name = ? AND settings = ?");
      ps.setString(1, q.settingsJson());
      ps.setString(2, q.configHash());
      ps.setString(3, q.name());
      ps.setString(4, expectedSettings);
    }
    boolean stored = ps.executeUpdate() == 1;
    if (stored) {
      tx.queuesChanged = true;
    }
    return stored;
  }

  static boolean delete(PgTx tx, String name) throws SQLException {
    // The queue's row first: its lock waits for the writes that hold it (PgTx.requireQueues) to
    // commit, and the message deletion after it, a statement of its own, then sees their rows.
    PreparedStatement q = tx.prepare("DELETE FROM queues WHERE name = ?");
    q.setString(1, name);
    tx.queuesChanged = true;
    boolean existed = q.executeUpdate() == 1;
    purge(tx, name);
    PreparedStatement idem = tx.prepare("DELETE FROM idempotency WHERE queue = ?");
    idem.setString(1, name);
    idem.executeUpdate();
    forgetCounters(tx, name);
    return existed;
  }

  /**
   * Drops the counter rows of a queue just emptied and deleted, else each deleted queue would
   * leave a row per stripe and state for good, read by every node's poll once a second. Nothing
   * else can write them now: the queue's messages are all deleted by this transaction (rows it
   * holds), and writes into it wait for its row. Its cells in a dead-letter queue go too when
   * that queue holds none of its messages: none can come, as they come only from the queue.
   */
  private static void forgetCounters(PgTx tx, String name) throws SQLException {
    // The purge's decrements would otherwise write the rows again, negative.
    tx.delta.forget(name);
    PreparedStatement own = tx.prepare("DELETE FROM counters WHERE queue = ?");
    own.setString(1, name);
    own.executeUpdate();
    PreparedStatement asOrigin =
        tx.prepare(
            "DELETE FROM counters c WHERE c.origin = ? AND NOT EXISTS (SELECT 1 FROM messages m"
                + " WHERE m.queue = c.queue AND m.original_queue = c.origin)");
    asOrigin.setString(1, name);
    asOrigin.executeUpdate();
  }

  /** Deletes a queue's messages, taking each one off the counters it was counted in. */
  static long purge(PgTx tx, String queue) throws SQLException {
    PreparedStatement ps =
        tx.prepare(
            "WITH d AS (DELETE FROM messages WHERE queue = ? RETURNING state, original_queue)"
                + " SELECT state, original_queue, count(*) FROM d GROUP BY 1, 2");
    ps.setString(1, queue);
    long total = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        tx.delta.add(queue, rs.getInt(1), rs.getString(2), -rs.getLong(3));
        total += rs.getLong(3);
      }
    }
    forgetDeletedOrigins(tx, queue);
    return total;
  }

  /**
   * Drops the cells a dead-letter queue keeps for origin queues deleted while it held their
   * messages: their deletion kept the cells for those messages, and once they are gone too the
   * cells would sum to zero for as long as the DLQ exists, one row per stripe and state, read by
   * every node's poll. None of them can be written again: messages of a queue that does not
   * exist come into the DLQ no more, and those still in it (come in after the purge's snapshot)
   * keep their origin's cells.
   */
  private static void forgetDeletedOrigins(PgTx tx, String queue) throws SQLException {
    PreparedStatement ps =
        tx.prepare(
            "DELETE FROM counters c WHERE c.queue = ? AND c.origin <> ''"
                + " AND NOT EXISTS (SELECT 1 FROM queues q WHERE q.name = c.origin)"
                + " AND NOT EXISTS (SELECT 1 FROM messages m"
                + " WHERE m.queue = c.queue AND m.original_queue = c.origin)"
                + " RETURNING c.origin");
    ps.setString(1, queue);
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        // The purge's decrements of the cells just deleted would write them again, negative.
        tx.delta.forget(queue, rs.getString(1));
      }
    }
  }

  static boolean deleteMessage(PgTx tx, String queue, String id) throws SQLException {
    PreparedStatement find =
        tx.prepare(
            "SELECT " + HeldRow.COLUMNS + " FROM messages WHERE id = ? AND queue = ? FOR UPDATE");
    find.setString(1, id);
    find.setString(2, queue);
    HeldRow h;
    try (ResultSet rs = find.executeQuery()) {
      if (!rs.next()) {
        return false;
      }
      h = HeldRow.read(rs);
    }
    PgChanges changes = new PgChanges(tx, 0);
    changes.delete(h);
    changes.flush();
    return true;
  }
}
