package dev.wharf.store.postgres;

import dev.wharf.store.BrowseRequest;
import dev.wharf.store.ClaimRequest;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.Message;
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
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The shared backend: many Wharf nodes on one PostgreSQL database. Each node writes through a
 * few group-commit lanes (one transaction and one commit for all operations waiting in a lane),
 * claims with {@code FOR UPDATE SKIP LOCKED}, tells other nodes what became visible with {@code
 * NOTIFY} in the committing transaction, and runs reapers only while it holds the reaper advisory
 * lock. Writes return only once committed, with {@code synchronous_commit} on but for settles,
 * claims and reaper passes ({@link PgWriter.LazyCommit}).
 */
public final class PostgresStore implements Store {
  private final PostgresSettings settings;
  private final long pollMillis;
  private final String node = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 8);
  private PgWriter writer;
  private PgReads reads;
  private PgReadiness readiness;
  private PgReaperLock reaper;
  private PgNotifier notifier;
  private final PgHealth health;
  private final PgConnections connections;
  /** How long the reaper lock's session may be idle before the server ends it (PgSession). */
  private final long reaperIdleMillis;

  public PostgresStore(PostgresSettings settings) {
    this(settings, PgNotifier.POLL_MS);
  }

  /** Tests stretch the polling fallback to prove a wake-up came by NOTIFY. */
  PostgresStore(PostgresSettings settings, long pollMillis) {
    this(settings, pollMillis, PgReaperLock.IDLE_MILLIS);
  }

  /** Tests shorten how long a frozen node keeps the reapers. */
  PostgresStore(PostgresSettings settings, long pollMillis, long reaperIdleMillis) {
    this(settings, pollMillis, reaperIdleMillis, PgSession.TRANSACTION_IDLE_MILLIS);
  }

  /** Tests shorten how long a frozen node's transaction keeps its locks too. */
  PostgresStore(PostgresSettings settings, long pollMillis, long reaperIdleMillis,
      long transactionIdleMillis) {
    this.settings = settings;
    this.pollMillis = pollMillis;
    this.reaperIdleMillis = reaperIdleMillis;
    this.health = new PgHealth(System::nanoTime, PgHealth.stallFreshFor(settings));
    this.connections =
        new PgConnections(settings, applicationName(), health, transactionIdleMillis);
  }

  @Override
  public void start() {
    PgStart.Opened opened = PgStart.open(connections);
    PgSession.Features features = opened.features();
    String schemaPrefix = opened.schema() + "|";
    String prefix = schemaPrefix + node + "|";
    // Two lanes overlap one commit's WAL flush with the next batch; more only contend for the
    // table's extension lock and the same CPU (measured on 2 cores with PostgreSQL on loopback:
    // 4 lanes 10k single publishes/s and 19k consumed/s, 2 lanes 28k and 24k).
    int lanes = Math.max(1, Math.min(2, settings.poolSize() / 2));
    int stripeBase = ThreadLocalRandom.current().nextInt(PgCounters.STRIPES);
    try {
      reads = new PgReads(settings, Math.max(1, settings.poolSize() - lanes),
          applicationName() + "-reads", health, connections.sessionQuery());
      readiness = new PgReadiness(reads, connections.stallMillis());
      writer = new PgWriter(connections::connectUnlessStalled, lanes, stripeBase, prefix,
          PgPublishOps::mergePlain, connections.stallMillis());
      reaper = new PgReaperLock(connections::connectUnlessStalled, stripeBase + lanes, prefix,
          features.endsIdle() ? reaperIdleMillis : 0);
      // The listener keeps trying while the database is away: its next connection that works is
      // how the node learns it is back.
      notifier = new PgNotifier(connections::connect, prefix, schemaPrefix, pollMillis,
          health::reached, health::listenerFailed, connections.stallMillis());
      notifier.start(opened.queuesVersion());
    } catch (RuntimeException e) {
      close();
      throw new StoreException("cannot open PostgreSQL store: " + e.getMessage(), e);
    }
  }

  /** A new connection of this node's own, set up as every one is ({@link PgConnections}). */
  Connection connect() {
    return connections.connect();
  }

  /** Closes every connection without touching any row: leases stay, the reaper lock is freed. */
  @Override
  public void close() {
    if (notifier != null) {
      notifier.close();
    }
    if (writer != null) {
      writer.close();
    }
    if (reaper != null) {
      reaper.close();
    }
    if (reads != null) {
      reads.close();
    }
  }

  @Override
  public String unready() {
    // Writes go to the same database: when it answers, a failing write is the caller's answer.
    return readiness.unready();
  }

  /** Whether this node runs the reapers now (for tests and metrics). */
  public boolean reaperLockHeld() {
    return reaper.holder();
  }

  /**
   * Which node runs the reapers: otherwise only its log says so, and an operator looking for
   * why leases do not expire (a frozen holder) has to find it there.
   */
  @Override
  public void bindMetrics(MeterRegistry registry) {
    Gauge.builder("wharf_postgres_reapers_held", this, s -> s.reaperLockHeld() ? 1 : 0)
        .description("1 while this node holds the reaper lock and runs the reapers")
        .register(registry);
  }

  /**
   * The application name this node's own connections give PostgreSQL; its read pool's add
   * {@code -reads}, so an operator (or a test) can end one node's sessions and no other's.
   */
  String applicationName() {
    return "wharf-" + node;
  }

  /** Test hook: runs {@code hook} before each commit of a writer lane or a reaper pass. */
  void beforeEachCommit(PgTx.CommitHook hook) {
    writer.commitHook = hook;
    reaper.commitHook = hook;
  }

  /** Test hook: drops the listening connection as a network failure would. */
  void dropListenConnection() {
    notifier.dropConnection();
  }

  // ---- queues ----

  @Override
  public List<QueueRecord> queuesList() {
    return reads.queues();
  }

  @Override
  public Optional<QueueRecord> queuesGet(String name) {
    return reads.queue(name);
  }

  @Override
  public void queuesPut(QueueRecord q) {
    writer.submit(tx -> PgQueues.put(tx, q));
  }

  @Override
  public boolean queuesPutIf(QueueRecord q, String expectedSettings) {
    return writer.submit(tx -> PgQueues.putIf(tx, q, expectedSettings));
  }

  @Override
  public boolean queuesDelete(String name) {
    // Deletes every message of the queue: as long as a purge.
    return writer.submitLong(tx -> PgQueues.delete(tx, name));
  }

  // ---- messages ----

  @Override
  public List<PublishResult> messagesPublish(PublishBatch batch) {
    return writer.submit(PgPublishOps.publish(batch));
  }

  @Override
  public CompletableFuture<List<PublishResult>> messagesPublishAsync(PublishBatch batch) {
    return writer.submitAsync(PgPublishOps.publish(batch));
  }

  @Override
  public List<Delivery> messagesClaim(ClaimRequest request) {
    return writer.submit(PgClaim.op(request));
  }

  @Override
  public CompletableFuture<List<Delivery>> messagesClaimAsync(ClaimRequest request) {
    return writer.submitAsync(PgClaim.op(request));
  }

  @Override
  public PublishedAndClaimed messagesPublishAndClaim(
      PublishBatch batch, List<ClaimRequest> claims) {
    return writer.submit(PgPublishOps.publishThenClaim(batch, claims));
  }

  @Override
  public CompletableFuture<PublishedAndClaimed> messagesPublishAndClaimAsync(
      PublishBatch batch, List<ClaimRequest> claims) {
    return writer.submitAsync(PgPublishOps.publishThenClaim(batch, claims));
  }

  @Override
  public List<LeaseOutcome> messagesSettle(SettleRequest request) {
    return writer.submit(PgSettle.op(request));
  }

  @Override
  public CompletableFuture<List<LeaseOutcome>> messagesSettleAsync(SettleRequest request) {
    return writer.submitAsync(PgSettle.op(request));
  }

  @Override
  public ReapResult leasesExpire(LeaseExpiryRequest request) {
    return reaper.runIfHolder(tx -> PgReap.expireLeases(tx, request), ReapResult.NONE);
  }

  @Override
  public ReapResult messagesExpireTtl(Instant now, int limit) {
    return reaper.runIfHolder(tx -> PgReap.expireTtl(tx, now, limit), ReapResult.NONE);
  }

  @Override
  public int messagesDeleteExpired(Instant before, int limit) {
    return reaper.runIfHolder(tx -> PgReap.deleteExpired(tx, before, limit), 0);
  }

  @Override
  public int idempotencyPrune(Instant now, int limit) {
    return reaper.runIfHolder(tx -> PgReap.pruneIdempotency(tx, now, limit), 0);
  }

  @Override
  public Redriven messagesRedrive(RedriveRequest request) {
    return writer.submit(tx -> PgReap.redrive(tx, request));
  }

  @Override
  public long messagesPurge(String queue) {
    // A large queue's purge may rightly run for minutes: no stall timeout cuts it short.
    return writer.submitLong(tx -> PgQueues.purge(tx, queue));
  }

  @Override
  public boolean messagesDelete(String queue, String id) {
    return writer.submit(tx -> PgQueues.deleteMessage(tx, queue, id));
  }

  @Override
  public Optional<Message> messagesGet(String queue, String id) {
    return reads.message(queue, id);
  }

  @Override
  public List<Message> messagesBrowse(BrowseRequest request) {
    return reads.browse(request);
  }

  @Override
  public QueueCounts queueCounts(String queue, Instant now) {
    return reads.counts(queue, now);
  }

  @Override
  public long deadCount(String deadLetterQueue, String originalQueue) {
    return reads.dead(deadLetterQueue, originalQueue);
  }

  @Override
  public Optional<Instant> messagesNextVisible(String queue, Instant now) {
    return reads.nextVisible(queue, now);
  }

  @Override
  public int messagesVisibleBetween(String queue, Instant after, Instant upTo, int limit) {
    return reads.visibleBetween(queue, after, upTo, limit);
  }

  @Override
  public void onVisibleElsewhere(VisibleElsewhere listener) {
    notifier.onVisible(listener);
  }

  @Override
  public void onQueuesChanged(Runnable listener) {
    notifier.onQueues(listener);
  }
}
