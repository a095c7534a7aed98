package dev.wharf.store.sqlite;

import dev.wharf.store.Delivery;
import dev.wharf.store.QueueGone;
import dev.wharf.store.StoreException;
import dev.wharf.store.WriteFuture;
import dev.wharf.store.jdbc.StatementCache;
import dev.wharf.store.jdbc.WriteJoin;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.LongConsumer;
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
 * ({@link Tx#nextSeq()}), so it knows which are durable. A dead move keeps its message's seq, so
 * a claim from the DLQ may be answered before the move is on disk: a power loss that undoes the
 * move puts the message back in its queue, where it is delivered again. The writer also
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

  interface Op<T> {
    T apply(Tx tx) throws SQLException;
  }

  /**
   * Operations that run together: every one of a batch with the same key goes to one call, made
   * where the first of them came in the batch, and gets the result at its own position of the list
   * returned.
   */
  interface GroupOp<R, T> {
    List<T> apply(Tx tx, List<R> requests) throws SQLException;
  }

  /**
   * What an operation sees: the connection, cached statements, the batch's counter delta, and the
   * seqs it hands out to new messages or changes by key.
   */
  static final class Tx {
    final Connection conn;
    /** Leases granted and not yet written to their rows. */
    final MemoryLeases leases;
    private final StatementCache statements;
    Counters.Delta delta = new Counters.Delta();
    private long nextSeq;
    private final Set<Long> upserted = new HashSet<>();
    /**
     * The queues whose rows are committed: what a write may go into. Holding the live names, not
     * those deleted, keeps it as large as the queues there are, however many come and go.
     */
    private final Set<String> live;
    /** Queues this batch deletes: gone once it commits. */
    private final Set<String> goingInTx = new HashSet<>();
    /** Queues this batch makes (again): no longer gone once it commits, and not if it fails. */
    private final Set<String> madeInTx = new HashSet<>();

    Tx(Connection conn, MemoryLeases leases, long nextSeq) throws SQLException {
      this.conn = conn;
      this.live = storedQueues(conn);
      this.leases = leases;
      this.statements = new StatementCache(conn);
      this.nextSeq = nextSeq;
    }

    /** Queue names the writer holds (for tests: they must not pile up as queues come and go). */
    int queueNamesHeld() {
      return live.size() + goingInTx.size() + madeInTx.size();
    }

    /** The seq of a new message: publish order, and the row's key. */
    long nextSeq() {
      return nextSeq++;
    }

    /** The highest seq handed out so far. */
    long highestSeq() {
      return nextSeq - 1;
    }

    /**
     * Refuses a write into a queue with no row: a publish that passed the broker's check just
     * before a deletion's last transaction would otherwise put rows into a queue that no longer
     * exists, which a queue made later under that name would take in, uncounted; and messages
     * moved into a dead-letter queue deleted before this store started would be out of every
     * count and browse.
     */
    void requireQueue(String queue) {
      if (goingInTx.contains(queue) || (!live.contains(queue) && !madeInTx.contains(queue))) {
        throw new QueueGone(queue);
      }
    }

    private static Set<String> storedQueues(Connection conn) throws SQLException {
      Set<String> names = new HashSet<>();
      try (var st = conn.createStatement();
          ResultSet rs = st.executeQuery("SELECT name FROM queues")) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
      return names;
    }

    /** The queue's deletion is in this transaction: later writes into it are refused. */
    void queueDeleted(String queue) {
      goingInTx.add(queue);
      madeInTx.remove(queue);
    }

    /** The queue is made (again): writes into it are taken. */
    void queueMade(String queue) {
      madeInTx.add(queue);
      goingInTx.remove(queue);
    }

    /** A ready message whose payload this batch replaced by key. */
    void upserted(long seq) {
      upserted.add(seq);
    }

    /** Readies it for a new batch: nothing counted, upserted, deleted or made yet. */
    void beginBatch() {
      delta = new Counters.Delta();
      upserted.clear();
      goingInTx.clear();
      madeInTx.clear();
    }

    /** The batch committed: the queues it made or deleted are so for later batches too. */
    void committed() {
      live.addAll(madeInTx);
      live.removeAll(goingInTx);
    }

    /** Queues this batch deleted and did not make again. */
    Set<String> deletedInTx() {
      return goingInTx;
    }

    /** Seqs of ready messages this batch replaced by key. */
    Set<Long> upsertedInTx() {
      return upserted;
    }

    PreparedStatement prepare(String sql) throws SQLException {
      return statements.prepare(sql);
    }

    void closeStatements() {
      statements.closeAll();
    }
  }

  /** When a write's caller is answered. */
  enum Answer {
    /** Once an fsync has covered its batch. */
    DURABLE,
    /**
     * At its batch's commit, with an fsync scheduled for it all the same; once an fsync has
     * covered it while a write failure stands ({@link WriteHealth}).
     */
    COMMITTED,
    /**
     * A claim, whose result is a list of deliveries: at commit when every message in it is already
     * durable (an empty one always is), else once they all are.
     */
    CLAIM
  }

  record Pending<T>(
      Op<T> op,
      CompletableFuture<T> done,
      Answer answer,
      Grouped<?, T> grouped,
      long submittedNanos,
      boolean freesRoom) {
    boolean claim() {
      return answer == Answer.CLAIM;
    }
  }

  /** A request of a {@link GroupOp}, and the key of the operations it runs with. */
  record Grouped<R, T>(Object key, R request, GroupOp<R, T> op) {}

  private final Connection conn;
  private final Tx tx;
  private final LinkedBlockingQueue<Pending<?>> queue = new LinkedBlockingQueue<>();
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
  private volatile Stages stages = Stages.NONE;

  /**
   * The stages of a write, each in nanoseconds: what a slow write waited for. Called on the
   * writer's and the fsync thread, so each must be quick: every answer waits for it.
   *
   * @param queued the oldest operation of a batch, from its submission to the batch's start
   * @param ran a batch's operations and its commit
   * @param synced a WAL fsync that succeeded
   * @param madeDurable a committed batch, from its commit to the return of the fsync covering it
   */
  record Stages(
      LongConsumer queued, LongConsumer ran, LongConsumer synced, LongConsumer madeDurable) {
    static final Stages NONE = new Stages(n -> {}, n -> {}, n -> {}, n -> {});
  }

  /** Makes committed WAL frames durable; {@link #sync()} returns once they are on disk. */
  interface WalSync {
    void sync() throws java.io.IOException;
  }

  /**
   * Upkeep the writer runs on its own connection after a commit, with no transaction open;
   * {@code makingRoom} while only an operator's deletions may write ({@link #makingRoom}).
   */
  interface BetweenBatches {
    void run(Connection conn, boolean makingRoom) throws SQLException;
  }

  /**
   * @param nextSeq the first seq to hand out: one past the highest in the database, all of which
   *     is durable, and past every seq reserved (see {@link #firstSeq})
   */
  GroupCommitWriter(
      Connection conn,
      Counters counters,
      WalSync walSync,
      BetweenBatches betweenBatches,
      MemoryLeases leases,
      long nextSeq,
      WriteHealth health,
      RoomReserve reserve)
      throws SQLException {
    this.health = health;
    this.room = new RoomForDeletions(reserve);
    this.conn = conn;
    this.betweenBatches = betweenBatches;
    conn.setAutoCommit(false);
    this.tx = new Tx(conn, leases, nextSeq);
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
  void observeStages(Stages observer) {
    stages = observer;
    fsync.observeStages(observer);
  }

  /** Runs an operation in the next group commit and returns its result once it is durable. */
  <T> T submit(Op<T> op) {
    return submit(op, Answer.DURABLE);
  }

  /**
   * Like {@link #submit(Op)} for an operator's deletion (a purge's chunk, a message's or a queue's
   * deletion): if it fails for lack of room on the disk, the room kept for it ({@link
   * RoomReserve}) is given up and it runs once more, alone, before any other write can take that
   * room.
   */
  <T> T submitFreeingRoom(Op<T> op) {
    if (!room.deletionUnderWay()) {
      throw new IllegalStateException("a deletion that frees room runs in makingRoom");
    }
    refuseOwnThreads();
    return join(enqueue(op, null, Answer.DURABLE, true));
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
  <T> T submit(Op<T> op, Answer answer) {
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
   * Like {@link #submit(Op)} for a claim run with the others of its key ({@link GroupOp}):
   * answered at commit, without waiting for the fsync, when every message it leases is already
   * durable.
   */
  <R> List<Delivery> submitClaim(Object key, R request, GroupOp<R, List<Delivery>> op) {
    refuseOwnThreads();
    return join(submitGroupedAsync(key, request, op, Answer.CLAIM));
  }

  /**
   * Queues a request of a {@link GroupOp} for the next group commit, as {@link #submitAsync}.
   *
   * @param answer when its caller is answered
   */
  <R, T> CompletableFuture<T> submitGroupedAsync(
      Object key, R request, GroupOp<R, T> op, Answer answer) {
    return enqueue(null, new Grouped<>(key, request, op), answer);
  }

  /**
   * Queues an operation for the next group commit. The future completes on the writer's or the
   * fsync thread, so what is chained to it must not block, and above all must not wait for
   * another write, which only these threads could finish (queueing one is fine; waiting fails).
   *
   * @param answer when its caller is answered
   */
  <T> CompletableFuture<T> submitAsync(Op<T> op, Answer answer) {
    return enqueue(op, null, answer);
  }

  private <T> CompletableFuture<T> enqueue(Op<T> op, Grouped<?, T> grouped, Answer answer) {
    return enqueue(op, grouped, answer, false);
  }

  private <T> CompletableFuture<T> enqueue(
      Op<T> op, Grouped<?, T> grouped, Answer answer, boolean freesRoom) {
    CompletableFuture<T> done = new WriteFuture<>(t -> t == thread || t == syncer);
    String broken = health.broken();
    if (!running || broken != null) {
      done.completeExceptionally(new StoreException(running ? broken : "store is closed"));
      return done;
    }
    Pending<T> pending = new Pending<>(op, done, answer, grouped, System.nanoTime(), freesRoom);
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
    List<Pending<?>> batch = new ArrayList<>(MAX_BATCH);
    while (running) {
      try {
        Pending<?> first = writeBacks.nextOrLeaseWriteBack(queue);
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

  /**
   * Fails every operation of the batch but the operator's deletions, and returns whether none is
   * left to run. A lease write-back (an empty batch) waits as well.
   */
  private boolean refuseAllButDeletions(List<Pending<?>> batch) {
    if (batch.isEmpty()) {
      writeBacks.retryLater();
      return true;
    }
    for (Iterator<Pending<?>> it = batch.iterator(); it.hasNext(); ) {
      Pending<?> p = it.next();
      if (!p.freesRoom()) {
        RoomForDeletions.refuse(p);
        it.remove();
      }
    }
    return batch.isEmpty();
  }

  /** Why writes but an operator's deletions are refused while {@link #roomKeptForDeletions}. */
  static final String ROOM_KEPT_FOR_DELETIONS =
      "the disk is full; its last room goes to a purge or delete under way";

  @SuppressWarnings("unchecked")
  static <T> void complete(Pending<T> p, Object result) {
    p.done().complete((T) result);
  }

  /** The first seq a writer opening this database may hand out: see {@link SeqBlocks}. */
  static long firstSeq(Connection c) throws SQLException {
    return SeqBlocks.firstSeq(c);
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
