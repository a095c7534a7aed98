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
 * all in one transaction, commits once (one fsync for the lot) and only then answers each caller.
 * This is what turns ~6k fsyncs a second into tens of thousands of durable writes a second.
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

  private record Pending<T>(Op<T> op, CompletableFuture<T> done) {}

  private final Connection conn;
  private final Counters counters;
  private final Tx tx;
  private final LinkedBlockingQueue<Pending<?>> queue = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean running = true;

  GroupCommitWriter(Connection conn, Counters counters) throws SQLException {
    this.conn = conn;
    this.counters = counters;
    conn.setAutoCommit(false);
    this.tx = new Tx(conn, new HashMap<>());
    this.thread = Thread.ofPlatform().name("wharf-sqlite-writer").daemon().start(this::loop);
  }

  /** Runs an operation in the next group commit and returns its result once committed. */
  <T> T submit(Op<T> op) {
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
    queue.add(new Pending<>(op, done));
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
      } catch (InterruptedException e) {
        break;
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
    for (int i = 0; i < batch.size(); i++) {
      complete(batch.get(i), results[i]);
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
