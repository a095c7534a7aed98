package dev.wharf.store.sqlite;

import dev.wharf.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The single SQLite writer. Callers hand it operations; it drains every operation waiting, runs them
 * all in one transaction and commits once. This is what turns ~6k fsyncs a second into tens of
 * thousands of durable writes a second.
 *
 * <p>The fsync is pipelined: the connection commits without syncing ({@code synchronous=NORMAL}
 * in WAL mode), and a second thread fsyncs the WAL file and only then answers the callers of every
 * batch that sync covers. While one batch's fsync is in flight the writer already runs the next
 * batch, so the disk's latency stops bounding the rate. No caller is answered before its writes
 * are on disk; a later batch that reads an earlier one's rows is answered after a sync that covers
 * both, since the WAL is written in order.
 *
 * <p>If an operation fails, the batch is rolled back and its operations are retried one per
 * transaction, so one bad operation fails alone.
 */
final class GroupCommitWriter implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(GroupCommitWriter.class.getName());
  private static final int MAX_BATCH = 512;

  interface Op<T> {
    T apply(Tx tx) throws SQLException;
  }

  /** What an operation sees: the connection, cached statements, and the batch's counter delta. */
  static final class Tx {
    final Connection conn;
    private final Map<String, PreparedStatement> statements;
    Counters.Delta delta = new Counters.Delta();

    Tx(Connection conn, Map<String, PreparedStatement> statements) {
      this.conn = conn;
      this.statements = statements;
    }

    PreparedStatement prepare(String sql) throws SQLException {
      PreparedStatement ps = statements.get(sql);
      if (ps == null) {
        ps = conn.prepareStatement(sql);
        statements.put(sql, ps);
      }
      return ps;
    }
  }

  /**
   * @param emptyIsFinal an empty list from this operation wrote nothing and promises nothing (a
   *     claim that found no message), so it is answered at once instead of after the next fsync
   */
  private record Pending<T>(Op<T> op, CompletableFuture<T> done, boolean emptyIsFinal) {}

  private final Connection conn;
  private final Counters counters;
  private final Tx tx;
  private final LinkedBlockingQueue<Pending<?>> queue = new LinkedBlockingQueue<>();
  private final LinkedBlockingQueue<Runnable> committed = new LinkedBlockingQueue<>();
  private final WalSync walSync;
  private final BetweenBatches betweenBatches;
  private final Thread thread;
  private final Thread syncer;
  private volatile boolean running = true;

  /** Makes committed WAL frames durable; {@link #sync()} returns once they are on disk. */
  interface WalSync {
    void sync() throws java.io.IOException;
  }

  /** Upkeep the writer runs on its own connection after a commit, with no transaction open. */
  interface BetweenBatches {
    void run(Connection conn) throws SQLException;
  }

  GroupCommitWriter(
      Connection conn, Counters counters, WalSync walSync, BetweenBatches betweenBatches)
      throws SQLException {
    this.conn = conn;
    this.counters = counters;
    this.walSync = walSync;
    this.betweenBatches = betweenBatches;
    conn.setAutoCommit(false);
    this.tx = new Tx(conn, new HashMap<>());
    this.thread = Thread.ofPlatform().name("wharf-sqlite-writer").daemon().start(this::loop);
    this.syncer = Thread.ofPlatform().name("wharf-sqlite-fsync").daemon().start(this::syncLoop);
  }

  private void syncLoop() {
    List<Runnable> ready = new ArrayList<>();
    while (running || !committed.isEmpty()) {
      try {
        ready.add(committed.take());
      } catch (InterruptedException e) {
        if (committed.isEmpty()) {
          break;
        }
      }
      committed.drainTo(ready);
      try {
        walSync.sync();
      } catch (java.io.IOException | RuntimeException e) {
        // The commits happened but may not be durable: never claim they are. Fail the callers;
        // the rows stay and are seen (and reported) by whoever reads them next.
        LOG.log(Level.SEVERE, "fsync of the WAL failed", e);
        StoreException failure = new StoreException("fsync failed: " + e.getMessage(), e);
        for (Runnable r : ready) {
          if (r instanceof Completion c) {
            c.fail(failure);
          }
        }
        ready.clear();
        continue;
      }
      ready.forEach(Runnable::run);
      ready.clear();
    }
  }

  /** Answers for one committed batch, run once the fsync covering it returned. */
  private record Completion(List<Pending<?>> batch, Object[] results) implements Runnable {
    @Override
    public void run() {
      for (int i = 0; i < batch.size(); i++) {
        complete(batch.get(i), results[i]);
      }
    }

    void fail(StoreException e) {
      batch.forEach(p -> p.done().completeExceptionally(e));
    }
  }

  /** Runs an operation in the next group commit and returns its result once committed. */
  <T> T submit(Op<T> op) {
    return submit(op, false);
  }

  /** Like {@link #submit(Op)}; an empty list as result is answered without waiting for fsync. */
  <T> T submitWhereEmptyIsFinal(Op<T> op) {
    return submit(op, true);
  }

  private <T> T submit(Op<T> op, boolean emptyIsFinal) {
    if (Thread.currentThread() == thread) {
      // Re-entrant call from inside an operation: it joins the transaction under way.
      try {
        return op.apply(tx);
      } catch (SQLException e) {
        throw new StoreException("write failed: " + e.getMessage(), e);
      }
    }
    if (!running) {
      throw new StoreException("store is closed");
    }
    CompletableFuture<T> done = new CompletableFuture<>();
    queue.add(new Pending<>(op, done, emptyIsFinal));
    try {
      return done.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof StoreException se) {
        throw se;
      }
      throw new StoreException("write failed: " + e.getCause().getMessage(), e.getCause());
    }
  }

  private void loop() {
    List<Pending<?>> batch = new ArrayList<>(MAX_BATCH);
    while (running) {
      try {
        Pending<?> first = queue.take();
        batch.add(first);
        queue.drainTo(batch, MAX_BATCH - 1);
        runBatch(batch);
        betweenBatches.run(conn);
      } catch (InterruptedException e) {
        break;
      } catch (SQLException e) {
        // Upkeep failed after the batch was answered; the next batch tries again.
        LOG.log(Level.WARNING, "writer upkeep failed", e);
      } catch (RuntimeException | Error e) {
        LOG.log(Level.SEVERE, "writer batch failed", e);
        for (Pending<?> p : batch) {
          p.done().completeExceptionally(new StoreException("write failed: " + e, e));
        }
      } finally {
        batch.clear();
      }
    }
    for (Pending<?> p : queue) {
      p.done().completeExceptionally(new StoreException("store is closed"));
    }
  }

  private void runBatch(List<Pending<?>> batch) {
    Object[] results = new Object[batch.size()];
    tx.delta = new Counters.Delta();
    try {
      for (int i = 0; i < batch.size(); i++) {
        results[i] = batch.get(i).op().apply(tx);
      }
      conn.commit();
    } catch (SQLException e) {
      rollbackQuietly();
      if (batch.size() == 1) {
        batch.get(0).done().completeExceptionally(
            new StoreException("write failed: " + e.getMessage(), e));
        return;
      }
      for (Pending<?> p : batch) {
        runBatch(List.of(p));
      }
      return;
    }
    tx.delta.applyTo(counters);
    List<Pending<?>> durable = new ArrayList<>(batch.size());
    List<Object> durableResults = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      Pending<?> p = batch.get(i);
      if (p.emptyIsFinal() && results[i] instanceof List<?> l && l.isEmpty()) {
        complete(p, results[i]);
      } else {
        durable.add(p);
        durableResults.add(results[i]);
      }
    }
    if (!durable.isEmpty()) {
      committed.add(new Completion(durable, durableResults.toArray()));
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> void complete(Pending<T> p, Object result) {
    p.done().complete((T) result);
  }

  private void rollbackQuietly() {
    try {
      conn.rollback();
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "rollback failed", e);
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(5000);
      syncer.interrupt();
      syncer.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (PreparedStatement ps : tx.statements.values()) {
      try {
        ps.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
  }
}
