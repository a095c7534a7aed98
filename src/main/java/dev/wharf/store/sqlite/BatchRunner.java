package dev.wharf.store.sqlite;

import dev.wharf.store.QueueGone;
import dev.wharf.store.StorageFull;
import dev.wharf.store.StoreException;
import dev.wharf.store.sqlite.FsyncThread.Completion;
import dev.wharf.store.sqlite.PendingWrite.Grouped;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs one batch of the writer's operations in one transaction on its connection and commits it,
 * then answers at once the callers that may be and hands the rest to the fsync thread (see
 * {@link GroupCommitWriter} on who is answered when). A batch that fails is rolled back and its
 * operations run again one per transaction. Used on the writer's thread only.
 */
final class BatchRunner {
  // The writer's logger: an operator follows the writer's failures under one name.
  private static final Logger LOG = Logger.getLogger(GroupCommitWriter.class.getName());

  private final Connection conn;
  /** The writer connection's native handle: how many rows it has changed, read per batch. */
  private final org.sqlite.core.DB db;
  private final Counters counters;
  private final WriterTx tx;
  private final FsyncThread fsync;
  /** Whether writes are failing now, for readiness. */
  private final WriteHealth health;
  private final RoomForDeletions room;
  private final LeaseWriteBacks writeBacks;
  /** The seqs reserved so far, a block at a time. */
  private final SeqBlocks seqs;
  /** Set while it runs a batch's operations, before their commit. */
  private boolean applying;
  /** Batches committed; written by the writer's thread only, read by metrics. */
  private volatile long batches;

  /** @param nextSeq the first seq {@code tx} hands out */
  BatchRunner(
      Connection conn,
      Counters counters,
      WriterTx tx,
      long nextSeq,
      FsyncThread fsync,
      WriteHealth health,
      RoomForDeletions room,
      LeaseWriteBacks writeBacks)
      throws SQLException {
    this.conn = conn;
    this.db = conn.unwrap(org.sqlite.SQLiteConnection.class).getDatabase();
    this.counters = counters;
    this.tx = tx;
    this.seqs = new SeqBlocks(nextSeq);
    this.fsync = fsync;
    this.health = health;
    this.room = room;
    this.writeBacks = writeBacks;
  }

  /** Whether a batch's operations are running now, before their commit. */
  boolean applying() {
    return applying;
  }

  /** Batches committed so far, each one transaction. */
  long batches() {
    return batches;
  }

  /**
   * Runs the batch and answers its callers, or fails them. An empty batch writes back the leases
   * held in memory that have come of age.
   */
  void runBatch(List<PendingWrite<?>> batch) {
    String broken = health.broken();
    if (broken != null) {
      // Queued before the fsync failed; a lease write-back (an empty batch) waits for a restart.
      for (PendingWrite<?> p : batch) {
        p.done().completeExceptionally(new StoreException(broken));
      }
      return;
    }
    Object[] results = new Object[batch.size()];
    long changesBefore;
    try {
      changesBefore = db.total_changes();
    } catch (SQLException e) {
      changesBefore = -1; // unknown: the batch is synced as if it wrote
    }
    tx.beginBatch();
    applying = true;
    try {
      apply(batch, results);
      commit();
    } catch (SQLException | RuntimeException e) {
      failed(batch, e);
      return;
    } finally {
      applying = false;
    }
    answer(batch, results, changesBefore);
  }

  /** Runs the batch's operations in the open transaction. */
  private void apply(List<PendingWrite<?>> batch, Object[] results) throws SQLException {
    // Most batches hold no grouped operation: no map for them.
    Map<Object, List<Integer>> groups = null;
    for (int i = 0; i < batch.size(); i++) {
      Grouped<?, ?> g = batch.get(i).grouped();
      if (g != null) {
        if (groups == null) {
          groups = new HashMap<>();
        }
        groups.computeIfAbsent(g.key(), k -> new ArrayList<>()).add(i);
      }
    }
    for (int i = 0; i < batch.size(); i++) {
      PendingWrite<?> p = batch.get(i);
      if (p.grouped() == null) {
        results[i] = p.op().apply(tx);
      } else {
        // A group runs where its first member came.
        List<Integer> members = groups.get(p.grouped().key());
        if (members.get(0) == i) {
          runGroup(batch, members, results);
        }
      }
    }
    if (batch.isEmpty()) {
      tx.leases.writeBackOlderThan(tx, System.nanoTime() - tx.leases.maxAgeNanos());
    }
  }

  /** Commits the open transaction, with the seqs it hands out reserved in it. */
  private void commit() throws SQLException {
    long reserved = seqs.reserveSeqs(tx);
    conn.commit();
    seqs.committed(reserved);
    tx.committed();
  }

  /**
   * Rolls back a batch that failed, and fails its operations or runs each again alone: a batch
   * rolled back has answered no one yet.
   */
  private void failed(List<PendingWrite<?>> batch, Exception e) {
    // A failure of any kind rolls back: left open, the batch's writes would be committed with
    // the next batch while its callers were told it failed.
    rollbackQuietly();
    tx.leases.rollback();
    if (WriteHealth.syncFailed(e) && health.broke(String.valueOf(e.getMessage()))) {
      LOG.log(Level.SEVERE, "an fsync failed in a commit: writes are refused until the server"
          + " restarts; check the disk", e);
    }
    if (batch.isEmpty()) {
      logFailure("writing leases back failed; retrying in 100 ms", e);
      health.failed(batches, String.valueOf(e.getMessage()));
      writeBacks.retryLater();
      return;
    }
    if (batch.size() == 1 && e instanceof QueueGone gone) {
      // The caller's own answer (the queue is not there), not a failure of the store.
      batch.get(0).done().completeExceptionally(gone);
      return;
    }
    if (batch.size() == 1 && batch.get(0).freesRoom() && WriteHealth.diskFull(e)
        && room.giveUp(conn)) {
      runBatch(batch);
      return;
    }
    if (batch.size() == 1) {
      // Its caller answers 503; the cause belongs in the server's log.
      logFailure("write failed", e);
      health.failed(batches, String.valueOf(e.getMessage()));
      String why = "write failed: " + e.getMessage();
      batch.get(0).done().completeExceptionally(
          WriteHealth.diskFull(e) ? new StorageFull(why, e) : new StoreException(why, e));
      return;
    }
    for (PendingWrite<?> p : batch) {
      if (room.keptForDeletions() && !p.freesRoom()) {
        // A deletion before it in the batch was just given the room kept, as the loop would
        // have refused it in a batch of its own.
        RoomForDeletions.refuse(p);
      } else {
        runBatch(List.of(p));
      }
    }
  }

  /**
   * Answers a committed batch's callers that may be answered at commit, and hands the rest to
   * the fsync thread, with what the batch makes durable.
   */
  private void answer(List<PendingWrite<?>> batch, Object[] results, long changesBefore) {
    long committedAt = System.nanoTime();
    boolean wrote = changesBefore < 0 || changedSince(changesBefore);
    boolean wroteBack = tx.leases.wroteBackInTx();
    tx.leases.commit();
    tx.delta.applyTo(counters);
    // Here, not once the deleting caller is answered: by then the queue may be made again and
    // published to, counts a forget would wipe out. One made again in this batch is not among
    // them.
    tx.deletedInTx().forEach(counters::forget);
    long number = ++batches;
    Set<Long> upserted = Set.copyOf(tx.upsertedInTx());
    fsync.upsertsInFlight(upserted, number);
    List<PendingWrite<?>> durable = new ArrayList<>(batch.size());
    List<Object> durableResults = new ArrayList<>(batch.size());
    List<Integer> early = new ArrayList<>();
    boolean waiting = false;
    // A settle answered at commit counts on the fsync that follows. While a write failure stands
    // (a full disk, say), that fsync may fail too: the settle waits for it as a publish does, and
    // its caller hears if it failed.
    boolean settlesAtCommit = health.failure() == null;
    for (int i = 0; i < batch.size(); i++) {
      PendingWrite<?> p = batch.get(i);
      if (p.answer() == WriteAnswer.COMMITTED && settlesAtCommit
          || p.claim() && fsync.onDiskAlready((List<?>) results[i])) {
        early.add(i);
      } else {
        durable.add(p);
        durableResults.add(results[i]);
        if (p.claim()) {
          fsync.awaitDurable(p, (List<?>) results[i]);
          waiting = true;
        }
      }
    }
    if (waiting) {
      // An fsync may have made them durable after the check above but before they were listed,
      // and then found nothing to answer: look again now that they are.
      fsync.answerNowDurable();
    }
    // Claims answered early wrote nothing (their leases are held in memory); leases written back
    // and settles answered at commit go to disk with this fsync, which nobody may wait for.
    if (!durable.isEmpty() || wroteBack || wrote) {
      fsync.committed(
          new Completion(
              durable,
              durableResults.toArray(),
              number,
              tx.highestSeq(),
              upserted,
              committedAt,
              wrote));
    }
    // Answered after the fsync thread has its work: what an answer runs on this thread (the
    // caller's continuation) must not hold back the fsync that publishes wait for.
    for (int i : early) {
      PendingWrite.complete(batch.get(i), results[i]);
    }
  }

  private boolean changedSince(long changesBefore) {
    try {
      return db.total_changes() != changesBefore;
    } catch (SQLException e) {
      return true;
    }
  }

  /** Runs the grouped operations of one key together, in the order they came. */
  @SuppressWarnings("unchecked")
  private void runGroup(List<PendingWrite<?>> batch, List<Integer> members, Object[] results)
      throws SQLException {
    WriterGroupOp<Object, Object> op =
        (WriterGroupOp<Object, Object>) batch.get(members.get(0)).grouped().op();
    List<Object> requests = new ArrayList<>(members.size());
    for (int i : members) {
      requests.add(batch.get(i).grouped().request());
    }
    List<Object> out = op.apply(tx, requests);
    if (out.size() != members.size()) {
      throw new IllegalStateException(
          "a grouped operation answered " + out.size() + " of " + members.size() + " requests");
    }
    for (int k = 0; k < members.size(); k++) {
      results[members.get(k)] = out.get(k);
    }
  }

  /**
   * A full disk fails every write, each retried alone: the first failure of an outage is logged
   * (with its trace, but for a full disk, which a line says), then a line a minute, not a trace
   * for every publish refused.
   */
  private void logFailure(String what, Exception e) {
    switch (health.logWorthy(System.nanoTime())) {
      case FULL -> {
        if (WriteHealth.diskFull(e)) {
          LOG.warning(what + ": the disk is full; writes are refused until there is room ("
              + StoreException.firstLine(e.getMessage()) + ")");
        } else {
          LOG.log(Level.WARNING, what, e);
        }
      }
      case LINE -> LOG.warning(what + " (writes have failed since the last success): " + e);
      case QUIET -> {}
    }
  }

  /**
   * Undoes a failed batch and leaves the connection in a fresh transaction, whatever state the
   * failure left it in. On some errors (SQLITE_FULL, SQLITE_IOERR, ...) SQLite ends the
   * transaction itself: the driver's rollback then fails before it begins the next one, and the
   * writer would go on in autocommit, each statement committed alone, a batch answered 503 half
   * stored, and every later commit failing. Its cached statements may be left mid-step too.
   */
  private void rollbackQuietly() {
    try {
      conn.rollback();
    } catch (SQLException e) {
      // Expected after SQLITE_FULL and the like, which end the transaction themselves; the
      // failure that caused it is logged by the caller.
      LOG.log(Level.FINE, "rollback failed; beginning a new transaction", e);
    }
    try (Statement s = conn.createStatement()) {
      s.execute("BEGIN");
    } catch (SQLException e) {
      // In a transaction already: the one the driver's rollback began.
      LOG.log(Level.FINE, "a transaction is open", e);
    }
    tx.closeStatements();
  }
}
