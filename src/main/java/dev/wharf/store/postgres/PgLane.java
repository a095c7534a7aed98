package dev.wharf.store.postgres;

import dev.wharf.store.QueueGone;
import dev.wharf.store.StoreException;
import dev.wharf.store.postgres.PgWriter.AdvisoryKey;
import dev.wharf.store.postgres.PgWriter.KeyLocking;
import dev.wharf.store.postgres.PgWriter.Mergeable;
import dev.wharf.store.postgres.PgWriter.Pending;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One lane of a {@link PgWriter}: one connection and one platform thread that drains the
 * operations waiting for it, runs them all in one transaction and commits once.
 */
final class PgLane {
  /** The writer's logger, as before the lanes had a file of their own. */
  private static final Logger LOG = Logger.getLogger(PgWriter.class.getName());
  private static final int MAX_BATCH = 512;

  private final PgWriter writer;
  private final Supplier<Connection> connect;
  private final int stripe;
  final LinkedBlockingQueue<Pending<?>> queue = new LinkedBlockingQueue<>();
  final Thread thread;
  volatile boolean busy;
  /** Set on the lane's thread while it runs operations, before their commit. */
  boolean applying;
  PgTx tx;
  /** The lane's connection, for a close from another thread (see {@link #abortConnection}). */
  private volatile Connection live;
  /** The read timeout the connection has now: the stall timeout, or 0 for long work. */
  private int boundMillis;

  PgLane(PgWriter writer, String name, Supplier<Connection> connect, int stripe) {
    this.writer = writer;
    this.connect = connect;
    this.stripe = stripe;
    this.thread = Thread.ofPlatform().name("wharf-pg-writer-" + name).daemon().start(this::loop);
  }

  private void loop() {
    List<Pending<?>> batch = new ArrayList<>(MAX_BATCH);
    while (writer.running()) {
      try {
        batch.add(queue.take());
        busy = true;
        queue.drainTo(batch, MAX_BATCH - 1);
        runBatch(batch, true);
      } catch (InterruptedException e) {
        break;
      } catch (RuntimeException | Error e) {
        LOG.log(Level.WARNING, "writer batch failed", e);
        StoreException failure =
            e instanceof StoreException se ? se : new StoreException("write failed: " + e, e);
        for (Pending<?> p : batch) {
          p.done().completeExceptionally(failure);
        }
      } finally {
        batch.clear();
        busy = false;
      }
    }
  }

  private void ensureConnection() {
    if (tx != null) {
      return;
    }
    Connection c = connect.get();
    try {
      c.setAutoCommit(false);
    } catch (SQLException e) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // Failing already: the first failure is the one reported.
      }
      throw new StoreException("cannot open a writer connection: " + e.getMessage(), e);
    }
    tx = new PgTx(c, stripe);
    live = c;
    boundMillis = writer.stallMillis;
  }

  /** Lifts the stall timeout for a batch that holds long work, and puts it back after. */
  private void boundFor(List<Pending<?>> batch) throws SQLException {
    int wanted = writer.stallMillis;
    for (Pending<?> p : batch) {
      if (p.mayRunLong()) {
        wanted = 0;
        break;
      }
    }
    if (wanted != boundMillis) {
      PgStall.bound(tx.conn, wanted);
      boundMillis = wanted;
    }
  }

  /** Whether every operation of the batch lets its commit skip the WAL flush. */
  private static boolean allLazy(List<Pending<?>> batch) {
    for (Pending<?> p : batch) {
      if (!(p.op() instanceof PgWriter.LazyCommit<?>)) {
        return false;
      }
    }
    return true;
  }

  private void runBatch(List<Pending<?>> batch, boolean mayRetrySingly) {
    runBatch(batch, mayRetrySingly, true);
  }

  /** See {@link KeyLocking}. Most batches have no such operation: no set is made for them. */
  private void lockKeysInOrder(List<Pending<?>> batch) throws SQLException {
    TreeSet<AdvisoryKey> keys = null;
    for (Pending<?> p : batch) {
      if (p.op() instanceof KeyLocking<?> k) {
        if (keys == null) {
          keys = new TreeSet<>();
        }
        keys.addAll(k.keys());
      }
    }
    if (keys == null || keys.isEmpty()) {
      return;
    }
    if (keys.size() > PgWriter.MAX_KEYS_LOCKED) {
      // Each lock holds a slot of the server's shared lock table until the commit; past this
      // many the batch takes them as its operations come, and a deadlock, should one come, is
      // broken by PostgreSQL and the batch run again an operation at a time.
      return;
    }
    String[] spaces = new String[keys.size()];
    String[] names = new String[keys.size()];
    int i = 0;
    for (AdvisoryKey k : keys) {
      spaces[i] = k.space();
      names[i++] = k.key();
    }
    // One round trip: the function runs row by row, in the arrays' (sorted) order.
    PreparedStatement lock =
        tx.prepare(
            "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(hashtext(s), hashtext(k))"
                + " FROM unnest(?::text[], ?::text[]) AS u(s, k)) locked");
    lock.setArray(1, tx.array("text", spaces));
    lock.setArray(2, tx.array("text", names));
    lock.execute();
  }

  /**
   * @param mayReconnect whether a batch whose connection turns out dead before its commit runs
   *     again on a new one
   */
  private void runBatch(List<Pending<?>> batch, boolean mayRetrySingly, boolean mayReconnect) {
    try {
      ensureConnection();
    } catch (StoreException e) {
      for (Pending<?> p : batch) {
        p.done().completeExceptionally(e);
      }
      return;
    }
    Object[] results = new Object[batch.size()];
    tx.reset();
    // Decided again for each transaction: a batch run again, or split, is judged anew.
    tx.lazy = allLazy(batch);
    applying = true;
    boolean committing = false;
    boolean again = false;
    try {
      boundFor(batch);
      lockKeysInOrder(batch);
      List<Mergeable<?>> merged = new ArrayList<>();
      List<Integer> mergedAt = new ArrayList<>();
      for (int i = 0; i < batch.size(); i++) {
        if (batch.get(i).op() instanceof Mergeable<?> m) {
          merged.add(m);
          mergedAt.add(i);
        }
      }
      if (!merged.isEmpty()) {
        List<Object> r = writer.merger.applyAll(tx, merged);
        for (int i = 0; i < r.size(); i++) {
          results[mergedAt.get(i)] = r.get(i);
        }
      }
      for (int i = 0; i < batch.size(); i++) {
        if (!(batch.get(i).op() instanceof Mergeable<?>)) {
          results[i] = batch.get(i).op().apply(tx);
        }
      }
      tx.beforeCommit(writer.notifyPrefix);
      PgTx.CommitHook hook = writer.commitHook;
      if (hook != null) {
        hook.beforeCommit(tx.conn);
      }
      committing = true;
      tx.conn.commit();
    } catch (SQLException | RuntimeException e) {
      // Whatever failed, nothing of this transaction may reach a later commit.
      boolean connectionLost = rollbackOrDrop();
      boolean timedOut = PgStall.timedOut(e);
      boolean endedIdle = PgSession.endedInTransaction(e);
      if (endedIdle && !connectionLost) {
        // The server ended the session: whatever the driver makes of that, it is of no more use.
        closeConnection();
        connectionLost = true;
      }
      if (connectionLost && !committing && mayReconnect && !timedOut && !endedIdle
          && writer.running()) {
        // Dead before the commit was sent (an idle connection the server dropped is found so,
        // by its first statement): nothing of the batch can have been committed, so it runs
        // again on a new connection instead of failing its callers. After a commit was sent
        // the outcome is unknown, and a second run could write the batch twice. Nor after a
        // wait that ran out: the database did not answer, and would keep a new one waiting.
        // Nor after the server ended a transaction that waited on this node (which paused):
        // its operations carry times from before the pause (a claim's lease end, a settle's
        // now), which a run now would apply to rows other nodes may have changed meanwhile.
        // Nor once the writer closes: the close ended that connection, and wants none more.
        again = true;
      } else if (batch.size() == 1 || !mayRetrySingly || connectionLost) {
        // A write into a deleted queue is its caller's answer, not a failure of the store.
        RuntimeException failure =
            endedIdle ? endedWhilePaused(e)
                : timedOut ? stalled(committing, e)
                : e instanceof StoreException || e instanceof QueueGone ? (RuntimeException) e
                : committing && connectionLost ? lostInCommit(e)
                : PgWriter.writeFailed(e);
        for (Pending<?> p : batch) {
          p.done().completeExceptionally(failure);
        }
        return;
      }
      if (!again) {
        for (Pending<?> p : batch) {
          runBatch(List.of(p), false);
        }
        return;
      }
    } finally {
      applying = false;
    }
    if (again) {
      runBatch(batch, mayRetrySingly, false);
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      complete(batch.get(i), results[i]);
    }
  }

  /**
   * The database did not answer within the stall timeout. Before the commit was sent nothing
   * of the batch can be committed (the driver closed the connection, which ends the session and
   * rolls it back whenever the server reads again); after, it may have been.
   */
  private StoreException stalled(boolean committing, Throwable cause) {
    return new StoreException("PostgreSQL did not answer within " + writer.stallMillis + " ms"
        + (committing ? " to a commit: the write may have been stored" : ""), cause);
  }

  /**
   * The connection was lost once the commit was sent (the server ended the session, or it went
   * away): the server may have committed before it went, so the caller must not take the failure
   * for nothing stored (a publish retried with its idempotency key is stored once).
   */
  private static StoreException lostInCommit(Throwable cause) {
    return new StoreException("write failed: the connection to PostgreSQL was lost during the"
        + " commit, so the write may have been stored: " + cause.getMessage(), cause);
  }

  /**
   * The server ended the session after it waited inside the batch's transaction for longer than
   * it allows ({@link PgSession#TRANSACTION_IDLE_MILLIS}): this node paused, and other nodes'
   * writes were waiting on the batch's locks. The transaction was rolled back, even when the
   * commit was what found it out.
   */
  private static StoreException endedWhilePaused(Throwable cause) {
    return new StoreException("PostgreSQL ended a transaction that waited too long for this node"
        + " (idle_in_transaction_session_timeout): nothing of the write was stored", cause);
  }

  /** Rolls back; returns true when the connection is gone (it is then dropped for a new one). */
  private boolean rollbackOrDrop() {
    try {
      tx.conn.rollback();
      if (tx.conn.isValid(2)) {
        return false;
      }
    } catch (SQLException e) {
      LOG.log(Level.FINE, "rollback failed", e);
    }
    closeConnection();
    return true;
  }

  /** From the closing thread: the lane's statement fails, and the lane drops the connection. */
  void abortConnection() {
    Connection c = live;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
  }

  void closeConnection() {
    live = null;
    if (tx != null) {
      tx.close();
      tx = null;
    }
  }

  void failPending() {
    Pending<?> p;
    while ((p = queue.poll()) != null) {
      p.done().completeExceptionally(new StoreException("store is closed"));
    }
  }

@SuppressWarnings("unchecked")
private static <T> void complete(Pending<T> p, Object result) {
  p.done().complete((T) result);
}
}
