package dev.wharf.store.sqlite;

import dev.wharf.store.jdbc.PublishThenClaim;
import dev.wharf.store.BrowseRequest;
import dev.wharf.store.ClaimRequest;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.PublishedAndClaimed;
import dev.wharf.store.QueueCounts;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.ReapResult;
import dev.wharf.store.RedriveRequest;
import dev.wharf.store.Redriven;
import dev.wharf.store.SettleRequest;
import dev.wharf.store.Store;
import dev.wharf.store.StoreException;
import dev.wharf.store.VisibleElsewhere;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;

/**
 * The embedded backend: one SQLite file in WAL mode, one writer thread that group-commits every
 * write with a pipelined fsync of the WAL (see {@link GroupCommitWriter}; claims included, so a
 * lease is never handed out before the message it names is durable; settles are answered at
 * commit, before that fsync), a background checkpointer, and a few reader connections for
 * inspection.
 */
public final class SqliteStore implements Store {
  private final Counters counters = new Counters();
  /** The room kept for deletions, the disk-free limit and the free pages ({@link DiskRoom}). */
  private final DiskRoom room = new DiskRoom();
  /** What the store holds open on its file, from the start to the close ({@link SqliteFile}). */
  private final SqliteFile database;
  /** The database's, from the start: every write goes through it. */
  private GroupCommitWriter writer;
  /** Queue records and the deletions of queues and their messages ({@link SqliteQueues}). */
  private SqliteQueues queues;
  /** An operator's reads of messages, and the counts of a queue ({@link SqliteReads}). */
  private SqliteReads messageReads;
  /** Whether the store can take writes now, for /readyz ({@link SqliteReadiness}). */
  private SqliteReadiness readiness;
  private IdLookup ids;

  /**
   * Page size of a new database file; an existing file keeps the one it was made with. 8 KB halves
   * the WAL frames (two write calls each) and checkpoint copies per message against 4 KB, which on
   * a guest where system calls are dear was worth more than the extra bytes a small commit syncs:
   * docs/benchmark-log.md has the three sizes side by side (2026-11-27, pages of 8 KB).
   */
  public static final int DEFAULT_PAGE_SIZE = 8192;
  /** Publishes are refused while the disk has less room than this ({@link DiskFreeLimit}). */
  public static final long DEFAULT_DISK_FREE_LIMIT = DiskFreeLimit.DEFAULT_BYTES;

  /** Loads what opening the first database needs, so a start can do it ahead of {@link #start}. */
  public static void preload() {
    SqliteConnections.loadNativeLibrary();
  }

  public SqliteStore(Path file) {
    this(file, DEFAULT_PAGE_SIZE);
  }

  /** With {@code pageSize} (a power of two, 512–65536) for a new database file. */
  public SqliteStore(Path file, int pageSize) {
    this(file, pageSize, 0, () -> {});
  }

  /** With the WAL restarted past {@code walRestartFrames} pages (tests use a small WAL). */
  SqliteStore(Path file, long walRestartFrames) {
    this(file, DEFAULT_PAGE_SIZE, walRestartFrames, () -> {});
  }

  /** With {@code beforeSync} run before every fsync of the WAL (tests hold fsyncs back). */
  SqliteStore(Path file, long walRestartFrames, WalSync beforeSync) {
    this(file, DEFAULT_PAGE_SIZE, walRestartFrames, beforeSync);
  }

  private SqliteStore(
      Path file, int pageSize, long walRestartFrames, WalSync beforeSync) {
    database = new SqliteFile(file, pageSize, walRestartFrames, beforeSync, counters, room);
  }

  @Override
  public void start() {
    database.open();
    writer = database.writer;
    ids = database.ids;
    queues = new SqliteQueues(database.reads, writer, counters, ids);
    messageReads = new SqliteReads(database.reads, ids, counters, database.memoryLeases, writer);
    readiness = new SqliteReadiness(counters, database.reads, room, writer);
  }

  @Override
  public void close() {
    database.close();
  }

  /** The writer, for tests that need an operation inside its transaction. */
  GroupCommitWriter writer() {
    return writer;
  }

  /** Tests only: the room kept for an operator's deletions on a full disk. */
  void keepRoomWith(RoomReserve reserve) {
    room.keepRoomWith(reserve);
  }

  /**
   * Before {@link #start}: no passive checkpoint runs but those {@link #checkpointNow} asks for, so
   * a test decides exactly where they land.
   */
  void checkpointOnlyWhenAsked() {
    database.checkpointInBackground = false;
  }

  /**
   * Before {@link #start}: publishes are refused while the disk holding the database has less
   * room than this many bytes (0: never); {@link DiskFreeLimit#DEFAULT_BYTES} unless set.
   */
  public void diskFreeLimit(long bytes) {
    room.diskFreeLimit(bytes);
  }

  /** Before {@link #start}, tests only: where the disk's free space and the time are read. */
  void diskFreeFrom(LongSupplier usable, LongSupplier nanos) {
    room.diskFreeFrom(usable, nanos);
  }

  /** Before {@link #start}: leases held in memory are written back once this old. */
  void writeLeasesBackAfter(Duration age) {
    database.leaseWriteBackAge = age;
  }

  /** Before {@link #start}: the count of the messages on disk waits for {@code gate}. */
  void holdStartupCount(CountDownLatch gate) {
    database.countGate = gate;
  }

  /** Runs one passive checkpoint now instead of waiting for the checkpointer's next pass. */
  void checkpointNow() {
    try {
      database.checkpointer.passOnce();
    } catch (SQLException e) {
      throw new StoreException("checkpoint failed: " + e.getMessage(), e);
    }
  }

  /** Passive checkpoint passes run so far. */
  long checkpointPasses() {
    return database.checkpointer.passes();
  }

  /**
   * Reads the database's free pages and what the next checkpoint needs of the disk now (for
   * tests; see {@link DiskRoom#readRoom}).
   */
  void readRoom() {
    room.readRoom();
  }

  /** What the next checkpoint must grow the database file by, as last read (for tests). */
  long checkpointOwes() {
    return room.checkpointOwes();
  }

  /** The database's free pages in bytes, as last read (for tests). */
  long freePageBytes() {
    return room.freePageBytes();
  }

  /** The writer's commits and fsyncs, the checkpoints and the leases ({@link SqliteMetrics}). */
  @Override
  public void bindMetrics(MeterRegistry registry) {
    SqliteMetrics.bind(
        registry, writer, database.checkpointer, database.memoryLeases, room);
  }

  @Override
  public String needsRestart() {
    return database.health == null ? null : database.health.broken();
  }

  @Override
  public String unready() {
    return readiness.unready();
  }

  // ---- queues ----

  @Override
  public List<QueueRecord> queuesList() {
    return queues.queuesList();
  }

  @Override
  public Optional<QueueRecord> queuesGet(String name) {
    return queues.queuesGet(name);
  }

  @Override
  public boolean queuesPutIf(QueueRecord q, String expectedSettings) {
    return queues.queuesPutIf(q, expectedSettings);
  }

  @Override
  public void queuesPut(QueueRecord q) {
    queues.queuesPut(q);
  }

  @Override
  public boolean queuesDelete(String name) {
    return queues.queuesDelete(name);
  }

  // ---- messages ----

  @Override
  public List<PublishResult> messagesPublish(PublishBatch batch) {
    room.refuseWhenLowOnDisk();
    return writer.submit(tx -> SqlitePublish.publish(tx, batch));
  }

  /** The key plain publishes to one queue are grouped by (apart from claims' keys). */
  private record PlainPublishes(String queue) {}

  @Override
  public CompletableFuture<List<PublishResult>> messagesPublishAsync(PublishBatch batch) {
    CompletableFuture<List<PublishResult>> refused = room.lowOnDisk();
    if (refused != null) {
      return refused;
    }
    if (!batch.messages().isEmpty() && SqlitePublish.allPlain(batch)) {
      return writer.submitGroupedAsync(
          new PlainPublishes(batch.queue()),
          batch,
          SqlitePublish::publishPlainTogether,
          WriteAnswer.DURABLE);
    }
    return writer.submitAsync(tx -> SqlitePublish.publish(tx, batch), WriteAnswer.DURABLE);
  }

  @Override
  public List<Delivery> messagesClaim(ClaimRequest request) {
    // A claim that found nothing needs no fsync: it changed nothing and promises nothing.
    return writer.submitClaim(request.queue(), request, SqliteClaim::claimTogether);
  }

  @Override
  public CompletableFuture<List<Delivery>> messagesClaimAsync(ClaimRequest request) {
    // Claims of one queue in one batch read the queue's head once.
    return writer.submitGroupedAsync(
        request.queue(), request, SqliteClaim::claimTogether, WriteAnswer.CLAIM);
  }

  @Override
  public PublishedAndClaimed messagesPublishAndClaim(
      PublishBatch batch, List<ClaimRequest> claims) {
    room.refuseWhenLowOnDisk();
    return writer.submit(publishThenClaim(batch, claims));
  }

  @Override
  public CompletableFuture<PublishedAndClaimed> messagesPublishAndClaimAsync(
      PublishBatch batch, List<ClaimRequest> claims) {
    CompletableFuture<PublishedAndClaimed> refused = room.lowOnDisk();
    if (refused != null) {
      return refused;
    }
    return writer.submitAsync(publishThenClaim(batch, claims), WriteAnswer.DURABLE);
  }

  /**
   * Not a claim for the writer: what it leases was published in this very transaction, so it is
   * answered at the fsync that makes the publish durable.
   */
  private static WriterOp<PublishedAndClaimed> publishThenClaim(
      PublishBatch batch, List<ClaimRequest> claims) {
    return tx -> PublishThenClaim.run(
        SqlitePublish.publish(tx, batch), claims, c -> SqliteClaim.claim(tx, c));
  }

  /** Answered at commit: see {@link GroupCommitWriter} on what a power loss can undo. */
  @Override
  public List<LeaseOutcome> messagesSettle(SettleRequest request) {
    return writer.submit(tx -> SqliteSettle.settle(tx, request), WriteAnswer.COMMITTED);
  }

  @Override
  public CompletableFuture<List<LeaseOutcome>> messagesSettleAsync(SettleRequest request) {
    return writer.submitAsync(tx -> SqliteSettle.settle(tx, request), WriteAnswer.COMMITTED);
  }

  @Override
  public ReapResult leasesExpire(LeaseExpiryRequest request) {
    return writer.submit(tx -> SqliteReap.expireLeases(tx, request));
  }

  @Override
  public ReapResult messagesExpireTtl(Instant now, int limit) {
    return writer.submit(tx -> SqliteReap.expireTtl(tx, now, limit));
  }

  @Override
  public int messagesDeleteExpired(Instant before, int limit) {
    return writer.submit(tx -> SqliteReap.deleteExpired(tx, before, limit));
  }

  @Override
  public int idempotencyPrune(Instant now, int limit) {
    return writer.submit(tx -> SqliteReap.pruneIdempotency(tx, now, limit));
  }

  @Override
  public Redriven messagesRedrive(RedriveRequest request) {
    return writer.submit(tx -> SqliteReap.redrive(tx, request, ids));
  }

  @Override
  public long messagesPurge(String queue) {
    return queues.messagesPurge(queue);
  }

  @Override
  public boolean messagesDelete(String queue, String id) {
    return queues.messagesDelete(queue, id);
  }

  @Override
  public Optional<Message> messagesGet(String queue, String id) {
    return messageReads.messagesGet(queue, id);
  }

  @Override
  public List<Message> messagesBrowse(BrowseRequest r) {
    return messageReads.messagesBrowse(r);
  }

  @Override
  public QueueCounts queueCounts(String queue, Instant now) {
    return messageReads.queueCounts(queue, now);
  }

  @Override
  public boolean knownEmpty(String queue) {
    // The counters change after each commit, a batch at a time, before its callers are answered.
    // Until the messages on disk are counted in, a zero means nothing.
    return counters.counted() && counters.get(queue, MessageState.READY.code()) == 0;
  }

  @Override
  public long deadCount(String deadLetterQueue, String originalQueue) {
    counters.awaitCounted();
    return counters.dead(deadLetterQueue, originalQueue);
  }

  @Override
  public Optional<Instant> messagesNextVisible(String queue, Instant now) {
    return messageReads.messagesNextVisible(queue, now);
  }

  @Override
  public int messagesVisibleBetween(String queue, Instant after, Instant upTo, int limit) {
    return messageReads.messagesVisibleBetween(queue, after, upTo, limit);
  }

  @Override
  public void onVisibleElsewhere(VisibleElsewhere listener) {
    // One process owns the file: every commit is seen by the core that made it.
  }

  @Override
  public void onQueuesChanged(Runnable listener) {
    // One process owns the file: queue changes are made by the core that holds them.
  }
}
