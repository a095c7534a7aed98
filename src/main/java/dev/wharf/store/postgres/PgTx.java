package dev.wharf.store.postgres;

import dev.wharf.store.QueueGone;
import dev.wharf.store.jdbc.StatementCache;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a write sees while it runs inside a shared transaction: the connection, its cached
 * statements, the counter changes of the transaction, and the queues it made messages visible in
 * (so other nodes are told in the same commit).
 */
final class PgTx {
  /** What a test runs on a transaction's connection just before its commit. */
  interface CommitHook {
    void beforeCommit(Connection c) throws SQLException;
  }

  final Connection conn;
  private final StatementCache statements;
  final PgCounters.Delta delta;
  /** Queues the transaction made messages visible in now, each with how many. */
  private final Map<String, Integer> visible = new LinkedHashMap<>();
  /** Queues the transaction made messages visible in later, each with the earliest such time. */
  private final Map<String, Long> later = new HashMap<>();
  boolean queuesChanged;
  /**
   * Whether the commit may return before the server's WAL flush: set by the lane or the reaper
   * lock when each operation of the transaction allows it ({@link PgWriter.LazyCommit}), and
   * false again for each new transaction, so that none is lazy unless told so.
   */
  boolean lazy;
  /** Whether an operation changed a row: one that changed none has no commit to flush. */
  boolean changed;

  PgTx(Connection conn, int stripe) {
    this.conn = conn;
    this.statements = new StatementCache(conn);
    this.delta = new PgCounters.Delta(stripe);
  }

  PreparedStatement prepare(String sql) throws SQLException {
    return statements.prepare(sql);
  }

  Array array(String type, Object[] values) throws SQLException {
    return conn.createArrayOf(type, values);
  }

  /**
   * Holds the queues' rows against deletion until this transaction ends, or throws {@link
   * QueueGone} for the first that is not there. A queue's deletion deletes its row first and its
   * messages after, so a write that got here first is swept with the queue, and one that came
   * later waits for the deletion's commit and then finds the row gone: nothing is written into a
   * queue that no longer exists, on whichever node.
   */
  void requireQueues(Collection<String> queues) throws SQLException {
    Set<String> wanted = new TreeSet<>(queues);
    PreparedStatement ps =
        prepare(
            "SELECT name FROM queues WHERE name = ANY(?::text[]) ORDER BY name FOR KEY SHARE");
    ps.setArray(1, array("text", wanted.toArray()));
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        wanted.remove(rs.getString(1));
      }
    }
    if (!wanted.isEmpty()) {
      throw new QueueGone(wanted.iterator().next());
    }
  }

  /** The transaction makes a message of {@code queue} visible now. */
  void visibleNow(String queue) {
    visible.merge(queue, 1, Integer::sum);
  }

  /** The transaction makes a message of {@code queue} visible at {@code at}, after now. */
  void visibleLater(String queue, long at) {
    later.merge(queue, at, Math::min);
  }

  /** Forgets what the last transaction did; called before each new one. */
  void reset() {
    delta.clear();
    visible.clear();
    later.clear();
    queuesChanged = false;
    lazy = false;
    changed = false;
  }

  /**
   * Writes the counter changes and tells other nodes what became visible, both inside the
   * transaction about to commit, so neither can disagree with the rows. A lazy transaction that
   * changed rows then commits without waiting for the WAL flush ({@link PgWriter.LazyCommit}).
   */
  void beforeCommit(String notifyPrefix) throws SQLException {
    delta.flush(this);
    if (!visible.isEmpty()) {
      String[] payloads = new String[visible.size()];
      int i = 0;
      for (Map.Entry<String, Integer> e : visible.entrySet()) {
        payloads[i++] = PgNotifier.visiblePayload(notifyPrefix, e.getValue(), e.getKey());
      }
      PreparedStatement ps =
          prepare("SELECT pg_notify('" + PgNotifier.VISIBLE + "', p) FROM unnest(?::text[]) p");
      ps.setArray(1, array("text", payloads));
      ps.execute();
    }
    if (!later.isEmpty()) {
      // Waiters elsewhere parked before these existed: without a word they would wait for the
      // polling fallback, up to a second past the time.
      String[] payloads = new String[later.size()];
      int i = 0;
      for (Map.Entry<String, Long> e : later.entrySet()) {
        payloads[i++] = notifyPrefix + e.getValue() + "|" + e.getKey();
      }
      PreparedStatement ps =
          prepare("SELECT pg_notify('" + PgNotifier.LATER + "', p) FROM unnest(?::text[]) p");
      ps.setArray(1, array("text", payloads));
      ps.execute();
    }
    if (queuesChanged) {
      PreparedStatement ps =
          prepare("UPDATE queues_changed SET version = version + 1 WHERE id = 1");
      if (ps.executeUpdate() != 1) {
        throw new SQLException("queues_changed row is missing");
      }
      PreparedStatement n = prepare("SELECT pg_notify('" + PgNotifier.QUEUES + "', ?)");
      n.setString(1, notifyPrefix);
      n.execute();
    }
    if (lazy && changed) {
      // Local to this transaction, however it ends: the session stays on for the next.
      prepare("SELECT set_config('synchronous_commit', 'off', true)").execute();
    }
  }

  /** Closes its statements and its connection, going on past any failure: it is dropped. */
  void close() {
    statements.closeAll();
    try {
      conn.close();
    } catch (SQLException ignored) {
      // dropping it anyway
    }
  }
}
