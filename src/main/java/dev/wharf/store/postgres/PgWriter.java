package dev.wharf.store.postgres;

import dev.wharf.store.StorageFull;
import dev.wharf.store.StoreException;
import dev.wharf.store.WriteFuture;
import dev.wharf.store.jdbc.WriteJoin;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * This node's writers: a few lanes, each one connection and one platform thread that drains the
 * operations waiting for it, runs them all in one transaction and commits once (one WAL flush for
 * the lot, not waited for when the lot is only settles and claims: {@link LazyCommit}) before
 * answering any caller. Unlike SQLite, PostgreSQL takes several writers at once, so a lane that
 * waits on a commit does not hold the others up.
 *
 * <p>Plain publishes waiting in a lane (no idempotency key, no upsert key) become one multi-row
 * insert. If an operation fails, the transaction is rolled back and its operations retried one per
 * transaction, so one bad operation (or a deadlock victim) fails alone.
 */
final class PgWriter implements AutoCloseable {

  interface Op<T> {
    T apply(PgTx tx) throws SQLException;
  }

  /**
   * An operation whose caller may be answered before its commit is flushed to the server's WAL
   * (a settle, a claim, a reaper pass): a batch of nothing else commits with {@code
   * synchronous_commit} off. DESIGN section 4 asks a settle to be committed before its answer,
   * and a claim never to hand out a message a crash could lose, but neither to be on disk. What a
   * crash of the server can undo is a settle or a lease, whose message is then leased as before,
   * or ready again, and delivered once more: at-least-once, as on SQLite, never lost. A claim
   * sees only publishes already flushed (they commit with it on, and a commit is seen only once
   * flushed), and a durable commit that read a lazy one's rows flushes it too (the WAL is
   * written in order).
   */
  interface LazyCommit<T> extends Op<T> {}

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

  /** Keys a batch takes up front at most: see {@link PgLane#lockKeysInOrder}. */
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
  record Pending<T>(Op<T> op, CompletableFuture<T> done, boolean mayRunLong) {}

  private final PgLane[] lanes;
  /**
   * The lane of {@link #submitLong}'s work, with a connection of its own (made at its first
   * use): no other write waits behind a purge that runs for minutes, nor behind one that waits
   * out a database that stopped answering, as no stall timeout ends its wait.
   */
  private final PgLane longLane;
  /** Every lane, the long work's too: those a close stops. */
  private final List<PgLane> all = new ArrayList<>();
  private final AtomicInteger next = new AtomicInteger();
  final String notifyPrefix;
  final Merger merger;
  /** How long a batch's statement or commit waits for an answer (see {@link PgStall}). */
  final int stallMillis;
  private volatile boolean running = true;
  /** Run on each lane's connection just before its commit; tests set it, else none. */
  volatile PgTx.CommitHook commitHook;

  /** @param stallMillis the read timeout the connections {@code connect} makes already have */
  PgWriter(Supplier<Connection> connect, int count, int stripeBase, String notifyPrefix,
      Merger merger, int stallMillis) {
    this.notifyPrefix = notifyPrefix;
    this.merger = merger;
    this.stallMillis = stallMillis;
    this.lanes = new PgLane[count];
    for (int i = 0; i < count; i++) {
      lanes[i] = new PgLane(this, Integer.toString(i), connect, stripeBase + i);
      all.add(lanes[i]);
    }
    // Past the reaper lock's stripe (stripeBase + count): its counter rows are its own.
    this.longLane = new PgLane(this, "long", connect, stripeBase + count + 1);
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
    for (PgLane own : all) {
      if (own.thread == Thread.currentThread() && own.applying) {
        // Called from inside an operation: it joins the transaction under way, as waiting for
        // another lane could deadlock on rows this one holds.
        if (!(op instanceof LazyCommit<?>)) {
          own.tx.lazy = false;
        }
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
    PgLane lane = mayRunLong ? longLane : pickLane();
    lane.queue.add(new Pending<>(op, done, mayRunLong));
    if (!running) {
      lane.failPending();
    }
    return done;
  }

  private boolean isLaneThread(Thread t) {
    for (PgLane lane : all) {
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
  private PgLane pickLane() {
    int start = Math.floorMod(next.getAndIncrement(), lanes.length);
    PgLane best = null;
    int bestLoad = Integer.MAX_VALUE;
    for (int i = 0; i < lanes.length; i++) {
      PgLane lane = lanes[(start + i) % lanes.length];
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

  /** Whether the writer takes work: false once it closes. */
  boolean running() {
    return running;
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
    for (PgLane lane : all) {
      lane.thread.interrupt();
    }
    long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
    for (PgLane lane : all) {
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

}
