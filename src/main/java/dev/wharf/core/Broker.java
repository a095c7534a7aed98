package dev.wharf.core;

import static dev.wharf.core.ArgumentRanges.checkLimit;
import static dev.wharf.core.StoreCalls.await;

import dev.wharf.store.Delivery;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import dev.wharf.store.PublishResult;
import dev.wharf.store.Redriven;
import dev.wharf.store.Store;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The broker: every rule of the message state machine, above a {@link Store} that only persists.
 * Dialects parse, authorise, call one of these commands and render; failures come out as a {@link
 * BrokerException}. Settling leases lives in {@link Settlements}, reapers in {@link Reapers}; the
 * commands here hand their work to {@link Publishing}, {@link Receives}, {@link QueueChanges} and
 * {@link MessageAdmin}, which share the wakes for delayed messages ({@link DelayedWakes}). Its
 * timers and reapers run on {@link BrokerThreads}.
 */
public final class Broker implements AutoCloseable {
  private final Store store;
  private final InstantSource clock;
  private final BrokerOptions options;
  private final QueueRegistry queues;
  private final Waiters waiters;
  private final BrokerMetrics metrics;
  private final QueueDepths depths;
  private final Settlements settlements;
  private final Reapers reapers;
  private final BrokerThreads threads;
  /** Timers that wake consumers when delayed messages come due. */
  private final DelayedWakes wakes;
  private final Receives receives;
  private final QueueChanges changes;
  private final MessageAdmin admin;
  private final Publishing publishing;
  /** Config entries not applied for lack of room on the disk. */
  private final EntriesWaitingForRoom waitingForRoom;

  public Broker(Store store, InstantSource clock, BrokerOptions options, MeterRegistry registry) {
    this.store = store;
    this.clock = clock;
    this.options = options;
    this.queues = new QueueRegistry(store, this::watch);
    this.waiters = new Waiters(options.maxWaiters(), q -> queues.find(q) != null);
    this.metrics = new BrokerMetrics(registry, q -> queues.find(q) != null);
    this.depths = new QueueDepths(store, clock, q -> queues.find(q) != null);
    this.threads = new BrokerThreads();
    ScheduledExecutorService t = threads.timers();
    this.wakes = new DelayedWakes(store, clock, queues, waiters, t);
    this.changes = new QueueChanges(queues, waiters, metrics, depths, wakes, this::watch);
    this.waitingForRoom = new EntriesWaitingForRoom(changes, t);
    this.admin = new MessageAdmin(store, clock, queues, metrics, wakes);
    this.publishing = new Publishing(store, clock, options, queues, waiters, metrics, wakes);
    this.settlements = new Settlements(this);
    this.receives =
        new Receives(store, clock, options, queues, waiters, metrics, settlements, wakes, t);
    this.reapers = new Reapers(this);
  }

  /** Loads queues and starts the reapers and cross-node wake-ups. The store must be started. */
  public void start() {
    startWithoutReapers();
    reapers.start(threads.reaping());
  }

  /** Starts everything but the background reapers: tests drive them with the clock they move. */
  public void startWithoutReapers() {
    queues.load();
    queues.names().forEach(this::watch);
    store.onVisibleElsewhere(wakes::visibleElsewhere);
    store.onQueuesChanged(changes::reloadQueues);
  }

  /**
   * Ends every wait, now and from then on, for a server that stops: each parked {@link
   * #receiveLater} is answered with nothing, as when its wait runs out, and so is each one that
   * would wait later; a {@link #receive} that waits, or would, throws {@link
   * BrokerException.Unavailable} instead, so that a stream can say why it ends. Neither claims
   * anything for that answer, so none of them holds a lease. A consumer a publisher already took
   * is still answered with what it was handed.
   */
  public void stopWaiting() {
    receives.stopWaiting();
  }

  @Override
  public void close() {
    // Nothing may stay parked: its timeout would never come once the timers stop.
    stopWaiting();
    threads.close();
  }

  // ---- queues ----

  public List<String> queueNames() {
    return queues.names();
  }

  /** A page of queue names after {@code after} (null or empty: the first page), by name. */
  public List<String> queueNames(String after, int limit) {
    checkLimit(limit);
    return queues.names(after == null || after.isEmpty() ? null : after, limit);
  }

  public QueueSettings settings(String queue) {
    return queues.require(queue);
  }

  /**
   * A scrape of the metrics begins: each queue's gauges read the store once in it, however long
   * the scrape of many queues takes (see {@link QueueDepths}).
   */
  public void scrapeStarting() {
    depths.scrapeStarting();
  }

  /** Whether some queue dead-letters into {@code queue}. */
  public boolean isDeadLetterQueue(String queue) {
    return queues.isDeadLetterQueue(queue);
  }

  /** The tokens that open a queue's data routes (see {@link QueueRegistry#consumerTokens}). */
  public List<String> consumerTokens(String queue) {
    return queues.consumerTokens(queue);
  }

  /** Creates a queue or changes its settings. Returns true when it was created. */
  public boolean putQueue(String queue, QueueSettingsPatch patch) {
    return changes.putQueue(queue, patch);
  }

  /**
   * Applies a queue from the config file at start-up: {@code settings} makes a queue that does not
   * exist; one that does takes the settings its entry names ({@code named}), when the entry
   * changed since it was last applied. Changes made through the API to settings the entry does
   * not name are kept: an entry added for a queue made through the API, or one whose other keys
   * changed, never resets its consumer tokens or limits to the defaults.
   *
   * @throws BrokerException.Invalid when the named settings and the queue's others do not go
   *     together (a delay as long as the TTL, say)
   */
  public void applyConfiguredQueue(
      String queue, QueueSettings settings, QueueSettingsPatch named) {
    changes.applyConfiguredQueue(queue, settings, named);
  }

  /**
   * Applies a config entry as {@link #applyConfiguredQueue} does or, when the disk has no room for
   * the write it needs, keeps it and applies it once there is room ({@link EntriesWaitingForRoom}).
   * Until every entry kept is applied, {@link #unready} names them.
   *
   * @return whether the entry is in force now
   */
  public boolean applyConfiguredQueueWhenRoom(
      String queue, QueueSettings settings, QueueSettingsPatch named) {
    return waitingForRoom.apply(queue, settings, named);
  }

  /** Applies the config entries kept for lack of room, as the retry each second does. */
  public void applyQueuesWaitingForRoom() {
    waitingForRoom.applyWaiting();
  }

  /** The names of config entries kept for lack of room, in the order they apply. */
  public List<String> queuesWaitingForRoom() {
    return waitingForRoom.names();
  }

  public boolean deleteQueue(String queue) {
    return changes.deleteQueue(queue);
  }

  /**
   * Throws {@link BrokerException.TooManyWaiters} when a consumer could not park now: a stream
   * asks before it opens, so it is refused with a status rather than opened to end at once.
   */
  public void requireRoomToWait() {
    waiters.requireRoom();
  }

  /** Consumers parked in a long-poll or stream wait right now, over all queues. */
  public int waitingConsumers() {
    return waiters.parkedCount();
  }

  /** Queues whose depths are remembered between gauge reads (for tests). */
  int queuesWithDepths() {
    return depths.queuesRemembered();
  }

  /** Queues with a list of parked consumers, even an empty one (for tests). */
  int queuesWithWaiterLists() {
    return waiters.queuesWithLists();
  }

  /** Consumers parked on one queue right now, ready to be handed what is published to it. */
  public int waitingConsumers(String queue) {
    return waiters.parkedOn(queue);
  }

  public QueueStats stats(String queue) {
    return admin.stats(queue);
  }

  /** Null when storage serves reads and writes; else why not (see {@link Store#unready}). */
  public String unready() {
    return waitingForRoom.unready(store.unready());
  }

  /** Why this process must restart before it takes writes again, or null (for liveness). */
  public String needsRestart() {
    return store.needsRestart();
  }

  /** The broker's clock, so dialects render ages and "delayed" against the same time. */
  public Instant now() {
    return clock.instant();
  }

  // ---- producing ----

  public List<PublishResult> publish(String queue, List<Publish> messages) {
    return await(publishAsync(queue, messages));
  }

  /**
   * Publishes without holding the caller's thread: the future completes once the messages are
   * durable, on a thread of the store's (chain nothing that blocks). Bad input and an unknown
   * queue are thrown here; a storage failure comes through the future.
   */
  public CompletableFuture<List<PublishResult>> publishAsync(
      String queue, List<Publish> messages) {
    return publishing.publishAsync(queue, messages);
  }

  // ---- consuming ----

  /**
   * Leases up to {@code max} messages, waiting up to {@code wait} for the first to arrive.
   *
   * @param visibility null = the queue's visibility timeout
   * @throws BrokerException.Unavailable when {@code wait} is not zero and the server stops, before
   *     the call or while it waits (see {@link #stopWaiting})
   */
  public List<Delivery> receive(String queue, int max, Duration wait, Duration visibility) {
    return receives.receive(queue, max, wait, visibility);
  }

  /**
   * Where the queue's settings and tokens stand, for a receive authorised after taking it: a
   * caller takes the mark, then checks the consumer's token, then passes the mark to {@link
   * #receiveLater} or {@link #receiveRound}. A change after the mark (a token revoked between
   * the check and the wait) then ends the wait with nothing, as a change during it does; taken
   * after the check, the mark would already include that change and the wait would go on under
   * the revoked token.
   */
  public long settingsMark(String queue) {
    return receives.settingsMark(queue);
  }

  /**
   * One round of a stream: like {@link #receive}, but {@code wait} is the stream's keepalive
   * interval, the server's own choice, not a client's wait that {@code server.max_wait} bounds.
   */
  public List<Delivery> receiveRound(
      String queue, int max, Duration wait, Duration visibility, long mark) {
    return receives.receiveRound(queue, max, wait, visibility, mark);
  }

  /**
   * Like {@link #receive}, but holding no thread: the future completes when messages are leased
   * for it or the wait runs out, on whichever thread got there (chain nothing that blocks).
   * Cancelling it (the consumer left) stops the wait, and gives back anything leased for it
   * meanwhile. Once the server stops ({@link #stopWaiting}) it waits no more: it completes with
   * nothing, like a wait that ran out. Bad arguments and an unknown queue are thrown here, and so
   * are too many waiters when the queue is known to be empty; otherwise those and storage failures
   * come through the future.
   */
  public CompletableFuture<List<Delivery>> receiveLater(
      String queue, int max, Duration wait, Duration visibility) {
    return receives.receiveLater(queue, max, wait, visibility);
  }

  /** As {@link #receiveLater(String, int, Duration, Duration)}, authorised after {@code mark}. */
  public CompletableFuture<List<Delivery>> receiveLater(
      String queue, int max, Duration wait, Duration visibility, long mark) {
    return receives.receiveLater(queue, max, wait, visibility, mark);
  }

  /**
   * Gives leases nobody will receive back at once, their attempt not counted; a failure is logged
   * (they expire then, as leases do). Waits for nothing, so any thread may call it.
   */
  public void releaseQuietly(String queue, List<Delivery> undelivered) {
    receives.releaseQuietly(queue, undelivered);
  }

  public Reapers reapers() {
    return reapers;
  }

  public Settlements settle() {
    return settlements;
  }

  // ---- inspecting and repairing ----

  public List<Message> browse(
      String queue, MessageState state, Boolean delayed, long after, int limit) {
    return admin.browse(queue, state, delayed, after, limit);
  }

  /** The dead messages that came from {@code queue}, in the order they were first published. */
  public List<Message> deadLetters(String queue, long after, int limit) {
    return admin.deadLetters(queue, after, limit);
  }

  public Message message(String queue, String id) {
    return admin.message(queue, id);
  }

  public void deleteMessage(String queue, String id) {
    admin.deleteMessage(queue, id);
  }

  /**
   * Moves dead messages that came from {@code queue} back into it; null ids = all of them. Ids
   * that name no dead message of the queue are skipped and said so.
   */
  public Redriven redrive(String queue, List<String> ids) {
    return admin.redrive(queue, ids);
  }

  public long purge(String queue) {
    return admin.purge(queue);
  }

  // ---- shared with Settlements and Reapers ----

  Store store() {
    return store;
  }

  InstantSource clock() {
    return clock;
  }

  BrokerOptions options() {
    return options;
  }

  QueueRegistry queues() {
    return queues;
  }

  BrokerMetrics metrics() {
    return metrics;
  }

  /**
   * Wakes consumers for messages visible now, and schedules a wake for ones visible later (see
   * {@link DelayedWakes#madeVisible}).
   */
  void madeVisible(String queue, int now, Instant later) {
    wakes.madeVisible(queue, now, later);
  }

  /** Tasks waiting on the timers' thread (for tests: what parks and delays leave behind). */
  int scheduledTasks() {
    return threads.scheduledTasks();
  }

  private void watch(String queue) {
    metrics.watchDepth(
        queue, state -> depths.depth(queue, state), () -> depths.oldestReadyAgeSeconds(queue));
  }

  /** The failure a dependent future reports, without the wrapper a chain adds. */
  public static Throwable unwrap(Throwable failure) {
    return StoreCalls.unwrap(failure);
  }
}
