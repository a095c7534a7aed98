package dev.wharf.store.sqlite;

import dev.wharf.store.Delivery;
import dev.wharf.store.StoreException;
import dev.wharf.store.WriteFuture;
import dev.wharf.store.jdbc.WriteJoin;
import dev.wharf.store.sqlite.PendingWrite.Grouped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The single SQLite writer. Callers hand it operations; it drains every operation waiting, runs
 * them all in one transaction and commits once. This is what turns ~6k fsyncs a second into tens
 * of thousands of durable writes a second.
 *
 * <p>The fsync is pipelined: the connection commits without syncing ({@code synchronous=NORMAL}
 * in WAL mode), and a second thread fsyncs the WAL file and only then answers the callers of every
 * batch that sync covers. While one batch's fsync is in flight the writer already runs the next
 * batch, so the disk's latency stops bounding the rate. No caller is answered before its writes
 * are on disk but settles and claims, below; a later batch that reads an earlier one's rows is
 * answered after a sync that covers both, since the WAL is written in order.
 *
 * <p>A settle (ack, nack, dead, defer, extend, release) is answered at its batch's commit, which
 * DESIGN §4 asks of it, not after the fsync a publish waits for: its WAL frames are then in the
 * OS's cache, past a kill -9 of the server, and the fsync already scheduled for them takes them to
 * disk within about a millisecond. What a power loss in that millisecond can undo is only a settle,
 * and an undone settle leaves its message leased and then ready again: delivered once more, as
 * at-least-once delivery allows, never lost. While writes are failing (a full disk, say), until
 * an fsync makes a later batch durable, settles wait for it as publishes do. A failed fsync ends
 * every write until the server restarts ({@link WriteHealth#broke}).
 *
 * <p>A claim is answered as soon as its batch commits when every message it leases is already
 * durable: published in a batch an fsync has covered, and not key-upserted since. The lease
 * itself is only in memory ({@link MemoryLeases}), which DESIGN §4 allows: after a crash such a
 * message is simply ready again. A claim of a message whose publish is not yet on disk waits for
 * the first fsync that makes it durable, often the one already under way for the publish's own
 * batch, and at the latest its own batch's. The writer assigns message seqs itself
 * ({@link WriterTx#nextSeq()}), so it knows which are durable. A dead move keeps its message's
 * seq, so a claim from the DLQ may be answered before the move is on disk: a power loss that
 * undoes the move puts the message back in its queue, where it is delivered again. The writer also
 * reserves seqs a block at a time ({@link SeqBlocks}), in the transaction of the first row beyond
 * the last block, so that a start goes on after every seq ever handed out, even when the newest
 * messages are gone: message ids carry their seq and are never given twice.
 *
 * <p>If an operation fails, the batch is rolled back and its operations are retried one per
 * transaction, so one bad operation fails alone. No answer, early or not, goes out before its
 * own transaction committed, so a batch rolled back has told no one anything.
 */
final class GroupCommitWriter implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(GroupCommitWriter.class.getName());
  private static final int MAX_BATCH = 512;

  private final Connection conn;
  private final WriterTx tx;
  private final LinkedBlockingQueue<PendingWrite<?>> queue = new LinkedBlockingQueue<>();
  /** The fsync thread, which makes each committed batch durable and answers its callers. */
  private final FsyncThread fsync;
  private final BetweenBatches betweenBatches;
  private final Thread thread;
  private final Thread syncer;
  private volatile boolean running = true;
  /** Runs each batch in one transaction, on the writer's thread. */
  private final BatchRunner runner;
  /** When leases held in memory are written back, between batches of operations. */
  private final LeaseWriteBacks writeBacks;

  /** Whether writes are failing now, for readiness. */
  private final WriteHealth health;
  /** The room kept on the disk for an operator's deletions. */
  private final RoomForDeletions room;
  /** Told where each batch's time went; set by metrics. */
  private volatile WriterStages stages = WriterStages.NONE;

  /**
   * @param nextSeq the first seq to hand out: one past the highest in the database, all of which
   *     is durable, and past every seq reserved (see {@link SeqBlocks#firstSeq})
   * @param readRoom reads the disk's room again ({@link DiskRoom#readRoom})
   */
  GroupCommitWriter(
      Connection conn,
      Counters counters,
      WalSync walSync,
      BetweenBatches betweenBatches,
      MemoryLeases leases,
      long nextSeq,
      WriteHealth health,
      RoomReserve reserve,
      Runnable readRoom)
      throws SQLException {
    this.health = health;
    this.room = new RoomForDeletions(reserve, betweenBatches, readRoom);
    this.conn = conn;
    this.betweenBatches = betweenBatches;
    conn.setAutoCommit(false);
    this.tx = new WriterTx(conn, leases, nextSeq);
    this.writeBacks = new LeaseWriteBacks(leases, health);
    this.fsync = new FsyncThread(walSync, health, nextSeq - 1);
    this.runner =
        new BatchRunner(conn, counters, tx, nextSeq, fsync, health, room, writeBacks);
    this.syncer = fsync.thread();
    this.thread = Thread.ofPlatform().name("wharf-sqlite-writer").daemon().start(this::loop);
    fsync.start();
  }

  /** Why writes are failing (the last one failed and none made durable since), or null. */
  String writeFailure() {
    return health.failure();
  }

  /** Batches committed so far, each one transaction. */
  long commits() {
    return runner.batches();
  }

  /**
   * Hands the stages of each later batch, and each WAL fsync's duration, to {@code observer}; the
   * fsync thread calls it before it answers that fsync's writes.
   */
  void observeStages(WriterStages observer) {
    stages = observer;
    fsync.observeStages(observer);
  }

  /** Runs an operation in the next group commit and returns its result once it is durable. */
  <T> T submit(WriterOp<T> op) {
    return submit(op, WriteAnswer.DURABLE);
  }

  /**
   * Like {@link #submit(WriterOp)} for an operator's deletion (a purge's chunk, a message's or a
   * queue's deletion): if it fails for lack of room on the disk, the room kept for it ({@link
   * RoomReserve}) is given up and it runs once more, alone, before any other write can take that
   * room.
   */
  <T> T submitFreeingRoom(WriterOp<T> op) {
    if (!room.deletionUnderWay()) {
      throw new IllegalStateException("a deletion that frees room runs in makingRoom");
    }
    refuseOwnThreads();
    return join(enqueue(op, null, WriteAnswer.DURABLE, true));
  }

  /** Runs an operator's deletion: see {@link RoomForDeletions#makingRoom}. */
  <T> T makingRoom(Supplier<T> deletion) {
    return room.makingRoom(deletion);
  }

  /** Whether writes but an operator's deletions are refused now: see {@link #makingRoom}. */
  boolean roomKeptForDeletions() {
    return room.keptForDeletions();
  }

  /** Runs an operation in the next group commit and returns its result when {@code answer} says. */
  <T> T submit(WriterOp<T> op, WriteAnswer answer) {
    if (Thread.currentThread() == thread && runner.applying()) {
      // Re-entrant call from inside an operation: it joins the transaction under way.
      try {
        return op.apply(tx);
      } catch (SQLException e) {
        throw writeFailed(e);
      }
    }
    refuseOwnThreads();
    return join(submitAsync(op, answer));
  }

  /**
   * Like {@link #submit(WriterOp)} for a claim run with the others of its key ({@link
   * WriterGroupOp}): answered at commit, without waiting for the fsync, when every message it
   * leases is already durable.
   */
  <R> List<Delivery> submitClaim(Object key, R request, WriterGroupOp<R, List<Delivery>> op) {
    refuseOwnThreads();
    return join(submitGroupedAsync(key, request, op, WriteAnswer.CLAIM));
  }

  /**
   * Queues a request of a {@link WriterGroupOp} for the next group commit, as {@link #submitAsync}.
   *
   * @param answer when its caller is answered
   */
  <R, T> CompletableFuture<T> submitGroupedAsync(
      Object key, R request, WriterGroupOp<R, T> op, WriteAnswer answer) {
    return enqueue(null, new Grouped<>(key, request, op), answer);
  }

  /**
   * Queues an operation for the next group commit. The future completes on the writer's or the
   * fsync thread, so what is chained to it must not block, and above all must not wait for
   * another write, which only these threads could finish (queueing one is fine; waiting fails).
   *
   * @param answer when its caller is answered
   */
  <T> CompletableFuture<T> submitAsync(WriterOp<T> op, WriteAnswer answer) {
    return enqueue(op, null, answer);
  }

  private <T> CompletableFuture<T> enqueue(
      WriterOp<T> op, Grouped<?, T> grouped, WriteAnswer answer) {
    return enqueue(op, grouped, answer, false);
  }

  private <T> CompletableFuture<T> enqueue(
      WriterOp<T> op, Grouped<?, T> grouped, WriteAnswer answer, boolean freesRoom) {
    CompletableFuture<T> done = new WriteFuture<>(t -> t == thread || t == syncer);
    String broken = health.broken();
    if (!running || broken != null) {
      done.completeExceptionally(new StoreException(running ? broken : "store is closed"));
      return done;
    }
    PendingWrite<T> pending =
        new PendingWrite<>(op, done, answer, grouped, System.nanoTime(), freesRoom);
    queue.add(pending);
    if (!running && queue.remove(pending)) {
      // Closed between the check and the add: the loop may have failed what it found already.
      done.completeExceptionally(new StoreException("store is closed"));
    }
    return done;
  }

  /** A wait on these threads would never end: refuse it before anything is queued. */
  private void refuseOwnThreads() {
    Thread me = Thread.currentThread();
    if (me == thread || me == syncer) {
      throw new IllegalStateException("a write waited for on its writer's own thread");
    }
  }

  private static <T> T join(CompletableFuture<T> done) {
    return WriteJoin.join(done, GroupCommitWriter::writeFailed);
  }

  private static StoreException writeFailed(Throwable cause) {
    return new StoreException("write failed: " + cause.getMessage(), cause);
  }

  private void loop() {
    List<PendingWrite<?>> batch = new ArrayList<>(MAX_BATCH);
    while (running) {
      try {
        PendingWrite<?> first = writeBacks.nextOrLeaseWriteBack(queue);
        long began = System.nanoTime();
        if (first != null) {
          batch.add(first);
          queue.drainTo(batch, MAX_BATCH - 1);
          stages.queued().accept(began - first.submittedNanos());
        }
        if (roomKeptForDeletions() && refuseAllButDeletions(batch)) {
          continue;
        }
        runner.runBatch(batch);
        stages.ran().accept(System.nanoTime() - began);
        betweenBatches.run(conn, roomKeptForDeletions());
      } catch (InterruptedException e) {
        break;
      } catch (SQLException e) {
        // Upkeep failed after the batch was answered; the next batch tries again.
        LOG.log(Level.WARNING, "writer upkeep failed", e);
      } catch (RuntimeException | Error e) {
        LOG.log(Level.SEVERE, "writer batch failed", e);
        health.failed(runner.batches(), String.valueOf(e.getMessage()));
        for (PendingWrite<?> p : batch) {
          p.done().completeExceptionally(new StoreException("write failed: " + e, e));
        }
      } finally {
        batch.clear();
      }
    }
    for (PendingWrite<?> p : queue) {
      p.done().completeExceptionally(new StoreException("store is closed"));
    }
  }

  /**
   * Fails every operation of the batch but the operator's deletions, and returns whether none is
   * left to run. A lease write-back (an empty batch) waits as well.
   */
  private boolean refuseAllButDeletions(List<PendingWrite<?>> batch) {
    if (batch.isEmpty()) {
      writeBacks.retryLater();
      return true;
    }
    RoomForDeletions.refuseAllButDeletions(batch);
    return batch.isEmpty();
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(5000);
      fsync.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    tx.closeStatements();
  }
}
