package dev.wharf.store.postgres;

import dev.wharf.store.QueueGone;
import dev.wharf.store.StorageFull;
import dev.wharf.store.StoreException;
import dev.wharf.store.WriteFuture;
import dev.wharf.store.jdbc.WriteJoin;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * This node's writers: a few lanes, each one connection and one platform thread that drains the
 * operations waiting for it, runs them all in one transaction and commits once (one WAL flush for
 * the lot) before answering any caller. Unlike SQLite, PostgreSQL takes several writers at once,
 * so a lane that waits on a commit does not hold the others up.
 *
 * <p>Plain publishes waiting in a lane (no idempotency key, no upsert key) become one multi-row
 * insert. If an operation fails, the transaction is rolled back and its operations retried one per
 * transaction, so one bad operation (or a deadlock victim) fails alone.
 */
final class PgWriter implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PgWriter.class.getName());
  private static final int MAX_BATCH = 512;

  interface Op<T> {
    T apply(PgTx tx) throws SQLException;
  }

  /** An operation lanes may merge with others of its kind into one statement. */
  interface Mergeable<T> extends Op<T> {}

  /**
   * An operation that waits on other transactions' keys (a key upsert's lock, an idempotency
   * key's row): the lane takes every such key of its batch at the start, in one order, so two
   * batches (of two lanes or nodes) holding keys in opposite orders never wait on each other.
   */
  interface KeyLocking<T> extends Op<T> {
    /** The advisory locks it will take, each a pair of texts hashed to PostgreSQL's two ints. */
    List<AdvisoryKey> keys();
  }

  /** Keys a batch takes up front at most: see {@link Lane#lockKeysInOrder}. */
  static final int MAX_KEYS_LOCKED = 1024;

  /** One advisory lock: {@code pg_advisory_xact_lock(hashtext(space), hashtext(key))}. */
  record AdvisoryKey(String space, String key) implements Comparable<AdvisoryKey> {
    @Override
    public int compareTo(AdvisoryKey o) {
      int c = space.compareTo(o.space);
      return c != 0 ? c : key.compareTo(o.key);
    }
  }

  /** Runs every pending mergeable operation of a batch at once; returns their results in order. */
  interface Merger {
    List<Object> applyAll(PgTx tx, List<Mergeable<?>> ops) throws SQLException;
  }

  /** @param mayRunLong waits for the database as long as it takes (see {@link #submitLong}) */
  private record Pending<T>(Op<T> op, CompletableFuture<T> done, boolean mayRunLong) {}

  private final Lane[] lanes;
  /**
   * The lane of {@link #submitLong}'s work, with a connection of its own (made at its first
   * use): no other write waits behind a purge that runs for minutes, nor behind one that waits
   * out a database that stopped answering, as no stall timeout ends its wait.
   */
  private final Lane longLane;
  /** Every lane, the long work's too: those a close stops. */
  private final List<Lane> all = new ArrayList<>();
  private final AtomicInteger next = new AtomicInteger();
  private final String notifyPrefix;
  private final Merger merger;
  /** How long a batch's statement or commit waits for an answer (see {@link PgStall}). */
  private final int stallMillis;
  private volatile boolean running = true;

  /** @param stallMillis the read timeout the connections {@code connect} makes already have */
  PgWriter(Supplier<Connection> connect, int count, int stripeBase, String notifyPrefix,
      Merger merger, int stallMillis) {
    this.notifyPrefix = notifyPrefix;
    this.merger = merger;
    this.stallMillis = stallMillis;
    this.lanes = new Lane[count];
    for (int i = 0; i < count; i++) {
      lanes[i] = new Lane(Integer.toString(i), connect, stripeBase + i);
      all.add(lanes[i]);
    }
    // Past the reaper lock's stripe (stripeBase + count): its counter rows are its own.
    this.longLane = new Lane("long", connect, stripeBase + count + 1);
    all.add(longLane);
  }

  /**
   * A failed write as its caller hears it: {@link StorageFull} when PostgreSQL's disk is full
   * (SQLSTATE 53100), which, as on SQLite, passes once there is room, so that a start keeps a
   * config entry for then instead of exiting.
   */
  static StoreException writeFailed(Throwable cause) {
    String why = "write failed: " + cause.getMessage();
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SQLException e && "53100".equals(e.getSQLState())) {
        return new StorageFull(why, cause);
      }
    }
    return new StoreException(why, cause);
  }

  /** Runs an operation in the next commit of some lane and returns its result once committed. */
  <T> T submit(Op<T> op) {
    return submit(op, false);
  }

  /**
   * As {@link #submit}, for work that may rightly run long (a purge of a large queue): its batch
   * waits for the database as long as it takes, where others take a silence past the stall
   * timeout for a dead connection. It runs on a lane of its own, so that no write bounded by the
   * stall timeout is queued or batched behind it.
   */
  <T> T submitLong(Op<T> op) {
    return submit(op, true);
  }

  private <T> T submit(Op<T> op, boolean mayRunLong) {
    if (!running) {
      throw new StoreException("store is closed");
    }
    for (Lane own : all) {
      if (own.thread == Thread.currentThread() && own.applying) {
        // Called from inside an operation: it joins the transaction under way, as waiting for
        // another lane could deadlock on rows this one holds.
        try {
          return op.apply(own.tx);
        } catch (SQLException e) {
          throw writeFailed(e);
        }
      }
    }
    if (isLaneThread(Thread.currentThread())) {
      // Chained to a future a lane completed: the wait would stall that lane, and the write
      // would be answered outside its transaction. Refused before anything is queued.
      throw new IllegalStateException("a write waited for on its writer's own thread");
    }
    return WriteJoin.join(submitAsync(op, mayRunLong), PgWriter::writeFailed);
  }

  /**
   * Queues an operation for the next commit of some lane. The future completes on the lane's
   * thread after the commit: what is chained to it must not block, nor wait for another write
   * (waiting fails).
   */
  <T> CompletableFuture<T> submitAsync(Op<T> op) {
    return submitAsync(op, false);
  }

  private <T> CompletableFuture<T> submitAsync(Op<T> op, boolean mayRunLong) {
    CompletableFuture<T> done = new WriteFuture<>(this::isLaneThread);
    if (!running) {
      done.completeExceptionally(new StoreException("store is closed"));
      return done;
    }
    Lane lane = mayRunLong ? longLane : pickLane();
    lane.queue.add(new Pending<>(op, done, mayRunLong));
    if (!running) {
      lane.failPending();
    }
    return done;
  }

  private boolean isLaneThread(Thread t) {
    for (Lane lane : all) {
      if (lane.thread == t) {
        return true;
      }
    }
    return false;
  }

  /**
   * An idle lane if there is one (so a lone request never waits for another's commit), else the
   * one with the least work waiting.
   */
  private Lane pickLane() {
    int start = Math.floorMod(next.getAndIncrement(), lanes.length);
    Lane best = null;
    int bestLoad = Integer.MAX_VALUE;
    for (int i = 0; i < lanes.length; i++) {
      Lane lane = lanes[(start + i) % lanes.length];
      int load = lane.queue.size() + (lane.busy ? 1 : 0);
      if (load == 0) {
        return lane;
      }
      if (load < bestLoad) {
        best = lane;
        bestLoad = load;
      }
    }
    return best;
  }

  /** How long a close waits for the batches under way, all lanes together. */
  private static final long CLOSE_WAIT_NANOS = 5_000_000_000L;

  /**
   * Stops the lanes: a batch under way may finish for a while, then its connection is closed
   * under it (a stalled database would hold it until the stall timeout), and what still waits
   * fails.
   */
  @Override
  public void close() {
    running = false;
    for (Lane lane : all) {
      lane.thread.interrupt();
    }
    long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
    for (Lane lane : all) {
      try {
        lane.thread.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        if (lane.thread.isAlive()) {
          lane.abortConnection();
          lane.thread.join(1000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      lane.failPending();
      if (!lane.thread.isAlive()) {
        lane.closeConnection();
      }
    }
  }

  private final class Lane {
    private final Supplier<Connection> connect;
    private final int stripe;
    private final LinkedBlockingQueue<Pending<?>> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean busy;
    /** Set on the lane's thread while it runs operations, before their commit. */
    private boolean applying;
    private PgTx tx;
    /** The lane's connection, for a close from another thread (see {@link #abortConnection}). */
    private volatile Connection live;
    /** The read timeout the connection has now: the stall timeout, or 0 for long work. */
    private int boundMillis;

    Lane(String name, Supplier<Connection> connect, int stripe) {
      this.connect = connect;
      this.stripe = stripe;
      this.thread = Thread.ofPlatform().name("wharf-pg-writer-" + name).daemon().start(this::loop);
    }

    private void loop() {
      List<Pending<?>> batch = new ArrayList<>(MAX_BATCH);
      while (running) {
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
      boundMillis = stallMillis;
    }

    /** Lifts the stall timeout for a batch that holds long work, and puts it back after. */
    private void boundFor(List<Pending<?>> batch) throws SQLException {
      int wanted = stallMillis;
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
      if (keys.size() > MAX_KEYS_LOCKED) {
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
          List<Object> r = merger.applyAll(tx, merged);
          for (int i = 0; i < r.size(); i++) {
            results[mergedAt.get(i)] = r.get(i);
          }
        }
        for (int i = 0; i < batch.size(); i++) {
          if (!(batch.get(i).op() instanceof Mergeable<?>)) {
            results[i] = batch.get(i).op().apply(tx);
          }
        }
        tx.beforeCommit(notifyPrefix);
        committing = true;
        tx.conn.commit();
      } catch (SQLException | RuntimeException e) {
        // Whatever failed, nothing of this transaction may reach a later commit.
        boolean connectionLost = rollbackOrDrop();
        boolean timedOut = PgStall.timedOut(e);
        if (connectionLost && !committing && mayReconnect && !timedOut && running) {
          // Dead before the commit was sent (an idle connection the server dropped is found so,
          // by its first statement): nothing of the batch can have been committed, so it runs
          // again on a new connection instead of failing its callers. After a commit was sent
          // the outcome is unknown, and a second run could write the batch twice. Nor after a
          // wait that ran out: the database did not answer, and would keep a new one waiting.
          // Nor once the writer closes: the close ended that connection, and wants none more.
          again = true;
        } else if (batch.size() == 1 || !mayRetrySingly || connectionLost) {
          // A write into a deleted queue is its caller's answer, not a failure of the store.
          RuntimeException failure =
              timedOut ? stalled(committing, e)
                  : e instanceof StoreException || e instanceof QueueGone ? (RuntimeException) e
                  : writeFailed(e);
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
      return new StoreException("PostgreSQL did not answer within " + stallMillis + " ms"
          + (committing ? " to a commit: the write may have been stored" : ""), cause);
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
    private void abortConnection() {
      Connection c = live;
      if (c != null) {
        try {
          c.close();
        } catch (SQLException ignored) {
          // closing anyway
        }
      }
    }

    private void closeConnection() {
      live = null;
      if (tx != null) {
        tx.close();
        tx = null;
      }
    }

    private void failPending() {
      Pending<?> p;
      while ((p = queue.poll()) != null) {
        p.done().completeExceptionally(new StoreException("store is closed"));
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> void complete(Pending<T> p, Object result) {
    p.done().complete((T) result);
  }
}
