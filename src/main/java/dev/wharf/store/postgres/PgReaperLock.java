package dev.wharf.store.postgres;

import dev.wharf.store.QueueGone;
import dev.wharf.store.StoreException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Makes reapers run on one node at a time. The node that holds a session-level advisory lock on
 * its own connection runs the reaper passes, on that very connection: if the connection dies, the
 * lock goes with the session and the pass fails, and this node stops reaping until it takes the
 * lock again. Every other node's call costs one {@code pg_try_advisory_lock} and returns nothing,
 * so when the holder dies the next node to try takes over.
 *
 * <p>A holder that is frozen rather than dead (stopped, hung) keeps its session, its kernel
 * answering keepalives: the server ends the session once it is idle for {@link #IDLE_MILLIS}
 * ({@link PgSession}), and the next node to try takes over. When the frozen node acts again, its
 * pass fails on the ended session, before it changed anything, and it holds the lock no more.
 */
final class PgReaperLock implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PgReaperLock.class.getName());

  private final Supplier<Connection> connect;
  private final int stripe;
  private final String notifyPrefix;
  /**
   * How long the lock's session may be idle before the server ends it; 0 when the server cannot.
   * A live holder's passes come every 100 ms, a statement that runs long is not idle, and a node
   * that lost the lock this way takes it again at its next pass if no other has.
   */
  static final long IDLE_MILLIS = 30_000;

  private final long idleMillis;
  private PgTx tx;
  /** The lock's connection, for a close that must not wait for a pass on a stalled database. */
  private volatile Connection live;
  /** Volatile: a metrics scrape reads it without waiting for a pass ({@link #holder}). */
  private volatile boolean held;
  private volatile boolean closed;
  /** Run on the connection just before each pass's commit; tests set it, else none. */
  volatile PgTx.CommitHook commitHook;

  /** @param idleMillis the session's idle bound ({@link #IDLE_MILLIS}), 0 for none */
  PgReaperLock(Supplier<Connection> connect, int stripe, String notifyPrefix, long idleMillis) {
    this.connect = connect;
    this.idleMillis = idleMillis;
    this.stripe = stripe;
    this.notifyPrefix = notifyPrefix;
  }

  /**
   * Runs {@code op} in one transaction if this node holds the reaper lock, else returns none. A
   * pass commits without waiting for the WAL flush: it only moves rows whose time has come (to
   * ready, to a DLQ, to expired, or out), which a crash that undoes the commit leaves as they
   * were, due still, for the next pass to move again; no message is lost, and a lease expired
   * twice delivers its message once more, as at-least-once allows.
   */
  synchronized <T> T runIfHolder(PgWriter.LazyCommit<T> op, T none) {
    if (closed) {
      throw new StoreException("store is closed");
    }
    try {
      if (tx == null) {
        Connection c = connect.get();
        endWhenIdle(c);
        tx = new PgTx(c, stripe);
        live = c;
      }
      if (!held) {
        held = tryLock();
        if (!held) {
          return none;
        }
        LOG.info("this node now runs the reapers");
      }
      tx.conn.setAutoCommit(false);
      tx.reset();
      tx.lazy = true;
      T result = op.apply(tx);
      tx.beforeCommit(notifyPrefix);
      PgTx.CommitHook hook = commitHook;
      if (hook != null) {
        hook.beforeCommit(tx.conn);
      }
      tx.conn.commit();
      tx.conn.setAutoCommit(true);
      return result;
    } catch (SQLException | RuntimeException e) {
      // Roll back whatever failed, so no part of this pass reaches a later commit.
      dropIfBroken();
      if (e instanceof StoreException se) {
        throw se;
      }
      if (e instanceof QueueGone gone) {
        // A dead move into a DLQ deleted meanwhile: the broker makes it again and runs the pass.
        throw gone;
      }
      throw new StoreException("reaper pass failed: " + e.getMessage(), e);
    }
  }

  private void endWhenIdle(Connection c) throws SQLException {
    if (idleMillis <= 0) {
      return;
    }
    try {
      PgSession.endWhenIdle(c, idleMillis);
    } catch (SQLException e) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // failing already
      }
      throw e;
    }
  }

  boolean holder() {
    return held;
  }

  private boolean tryLock() throws SQLException {
    tx.conn.setAutoCommit(true);
    try (Statement s = tx.conn.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_try_advisory_lock(hashtext(current_schema() || '.reapers'))")) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  private void dropIfBroken() {
    if (tx == null) {
      return;
    }
    try {
      if (!tx.conn.getAutoCommit()) {
        tx.conn.rollback();
        tx.conn.setAutoCommit(true);
      }
      if (tx.conn.isValid(2)) {
        return;
      }
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.FINE, "reaper connection unusable", e);
    }
    // Only the holder's loss frees the reapers: every node keeps a lock connection to try with.
    LOG.warning(held
        ? "reaper connection lost; another node may take the reapers over"
        : "reaper connection lost (this node did not run the reapers)");
    closeConnection();
  }

  private void closeConnection() {
    held = false;
    live = null;
    if (tx != null) {
      tx.close();
      tx = null;
    }
  }

  /**
   * Closing the connection ends the session, which releases the lock for another node. A pass
   * under way is not waited for: its connection is closed under it, so that a node whose database
   * stalled still stops at once (the pass fails, as one whose connection dropped does).
   */
  @Override
  public void close() {
    closed = true;
    Connection c = live;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
    synchronized (this) {
      closeConnection();
    }
  }
}
