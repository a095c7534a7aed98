package dev.wharf.store;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The storage seam. Every method is one transaction; writes return only once committed with
 * fsync, but settles, which DESIGN §4 asks only to be committed (SQLite answers them at commit,
 * before the fsync that follows), and claims, which may be answered once the messages they lease
 * are durable. Concurrent callers are grouped into shared commits by the backend. The store
 * decides no policy: attempt limits, DLQ names and times all come in as parameters.
 *
 * <p>The writes a request path makes also come as {@code ...Async}: the same transaction, the
 * future completed once it may be answered, as above, and no caller's thread
 * held meanwhile. A future completes on one of the store's own threads, so what is chained to it
 * must not block; above all it must not wait for another write, which may need that very thread.
 */
public interface Store extends AutoCloseable {

  /** Opens the database, applies migrations, rebuilds counters. */
  void start();

  @Override
  void close();

  /**
   * Null when the store serves reads and writes; else why not, in a few words, for readiness
   * probes. Cheap while all is well.
   */
  String unready();

  /**
   * Why the store will not take writes again until the process restarts (a failed fsync), or
   * null: for liveness probes, which restart a process that says so. Cheap.
   */
  default String needsRestart() {
    return null;
  }

  /**
   * Registers the backend's own meters (commits, syncs, upkeep) on {@code registry}, after
   * {@link #start}. A backend without any registers nothing.
   */
  default void bindMetrics(MeterRegistry registry) {}

  List<QueueRecord> queuesList();

  Optional<QueueRecord> queuesGet(String name);

  /** Creates or replaces a queue's settings. */
  void queuesPut(QueueRecord queue);

  /**
   * Stores {@code queue} only if its stored settings are still {@code expectedSettings} (null: only
   * if there is no such queue), atomically against every other writer, other nodes' included.
   * Returns whether it was stored. A change read, merged and written back by two writers at once
   * would otherwise keep only the later one's view of the other fields.
   */
  boolean queuesPutIf(QueueRecord queue, String expectedSettings);

  /** Deletes a queue and every message in it. Returns false when there was none. */
  boolean queuesDelete(String name);

  List<PublishResult> messagesPublish(PublishBatch batch);

  List<Delivery> messagesClaim(ClaimRequest request);

  /**
   * Publishes a batch and then runs each claim, in order, in the same transaction: the hand-off
   * of new messages to consumers already waiting for them. A claim takes the oldest visible
   * messages as {@link #messagesClaim} would, which may be older ones than this batch's. Returns
   * once all of it is durable, so no consumer holds a message its publisher could still lose.
   */
  PublishedAndClaimed messagesPublishAndClaim(PublishBatch batch, List<ClaimRequest> claims);

  /** One outcome per distinct lease id, in request order. */
  List<LeaseOutcome> messagesSettle(SettleRequest request);

  CompletableFuture<List<PublishResult>> messagesPublishAsync(PublishBatch batch);

  CompletableFuture<List<Delivery>> messagesClaimAsync(ClaimRequest request);

  CompletableFuture<PublishedAndClaimed> messagesPublishAndClaimAsync(
      PublishBatch batch, List<ClaimRequest> claims);

  CompletableFuture<List<LeaseOutcome>> messagesSettleAsync(SettleRequest request);

  ReapResult leasesExpire(LeaseExpiryRequest request);

  /** Marks ready or leased messages whose TTL passed as EXPIRED. Returns the count per queue. */
  ReapResult messagesExpireTtl(Instant now, int limit);

  /** Deletes EXPIRED messages whose expiry is at or before {@code before}. */
  int messagesDeleteExpired(Instant before, int limit);

  /** Forgets idempotency keys whose window ended at or before {@code now}. */
  int idempotencyPrune(Instant now, int limit);

  /** Moves dead messages back (at most {@code limit} when the request names no ids). */
  Redriven messagesRedrive(RedriveRequest request);

  /** Deletes every message of a queue. */
  long messagesPurge(String queue);

  boolean messagesDelete(String queue, String id);

  Optional<Message> messagesGet(String queue, String id);

  List<Message> messagesBrowse(BrowseRequest request);

  QueueCounts queueCounts(String queue, Instant now);

  /**
   * True only when the store knows, without reading anything, that the queue holds no ready
   * message, visible or delayed, as of its last commit; false when it does not know. A waiting
   * receive uses it to park without a claim or a read.
   */
  default boolean knownEmpty(String queue) {
    return false;
  }

  /** Counts the dead messages in {@code deadLetterQueue} that came from {@code originalQueue}. */
  long deadCount(String deadLetterQueue, String originalQueue);

  /** The earliest visibleAt after {@code now} among the queue's ready messages. */
  Optional<Instant> messagesNextVisible(String queue, Instant now);

  /**
   * How many of the queue's ready messages have a visibleAt after {@code after} and at or before
   * {@code upTo}, counting at most {@code limit}: the ones that came due between two moments. A
   * backend that holds new leases in memory may count the messages leased since they came due.
   */
  int messagesVisibleBetween(String queue, Instant after, Instant upTo, int limit);

  /**
   * Registers a listener told of each queue in which another writer (another node) made messages
   * visible, now or later. Single-process backends never call it.
   */
  void onVisibleElsewhere(VisibleElsewhere listener);

  /**
   * Registers a listener told that another writer (another node) changed or deleted queues, so
   * the caller reloads {@link #queuesList()}. Called within a second of such a change; single-process
   * backends never call it.
   */
  void onQueuesChanged(Runnable listener);
}
