package dev.wharf.core;

import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Queue settings held in memory (every request reads them) and written through to the store
 * (so API changes survive restarts).
 */
final class QueueRegistry {
  private final Store store;
  private final Map<String, QueueSettings> settings = new ConcurrentHashMap<>();
  private final Map<String, String> configHashes = new ConcurrentHashMap<>();
  /**
   * The consumer tokens of the queues that dead-letter into each DLQ, by DLQ name: a DLQ holds
   * those queues' messages, so their consumers' tokens open it, and it is closed to anyone else
   * when one of them is. Rebuilt whenever settings change (rarely); read on every data request.
   */
  private volatile Map<String, List<String>> dlqTokens = Map.of();

  /** Told the name of every DLQ created because a queue named it (its depth is watched too). */
  private final Consumer<String> deadLetterQueueCreated;

  QueueRegistry(Store store, Consumer<String> deadLetterQueueCreated) {
    this.store = store;
    this.deadLetterQueueCreated = deadLetterQueueCreated;
  }

  void load() {
    settings.clear();
    configHashes.clear();
    for (QueueRecord r : store.queuesList()) {
      settings.put(r.name(), SettingsCodec.fromJson(r.name(), r.settingsJson()));
      if (r.configHash() != null) {
        configHashes.put(r.name(), r.configHash());
      }
    }
    indexDeadLetterTokens();
  }

  /** A queue whose settings a reload changed: {@code after} is null for one deleted. */
  record Changed(String queue, QueueSettings before, QueueSettings after) {}

  /**
   * Re-reads every queue from the store (another node changed some), replacing entries in place
   * so a request running meanwhile never finds a live queue missing. Returns the queues whose
   * settings changed or that were removed; queues new to this node are not among them.
   */
  synchronized List<Changed> reload() {
    Map<String, QueueSettings> fresh = new HashMap<>();
    Map<String, String> hashes = new HashMap<>();
    for (QueueRecord r : store.queuesList()) {
      fresh.put(r.name(), SettingsCodec.fromJson(r.name(), r.settingsJson()));
      if (r.configHash() != null) {
        hashes.put(r.name(), r.configHash());
      }
    }
    List<Changed> changed = new ArrayList<>();
    for (Map.Entry<String, QueueSettings> e : fresh.entrySet()) {
      QueueSettings before = settings.put(e.getKey(), e.getValue());
      if (before != null && !before.equals(e.getValue())) {
        changed.add(new Changed(e.getKey(), before, e.getValue()));
      }
    }
    configHashes.putAll(hashes);
    for (String name : List.copyOf(settings.keySet())) {
      if (!fresh.containsKey(name)) {
        changed.add(new Changed(name, settings.remove(name), null));
        configHashes.remove(name);
      }
    }
    configHashes.keySet().removeIf(name -> !hashes.containsKey(name));
    indexDeadLetterTokens();
    return changed;
  }

  QueueSettings require(String queue) {
    QueueSettings s = settings.get(queue);
    if (s == null) {
      throw new BrokerException.QueueNotFound(queue);
    }
    return s;
  }

  /**
   * The tokens that open a queue's data routes: its own consumer tokens, and those of every queue
   * whose DLQ it is. Empty when none of them has any.
   */
  List<String> consumerTokens(String queue) {
    List<String> own = require(queue).consumerTokens();
    List<String> inherited = dlqTokens.get(queue);
    if (inherited == null) {
      return own;
    }
    List<String> all = new ArrayList<>(own);
    all.addAll(inherited);
    return all;
  }

  private synchronized void indexDeadLetterTokens() {
    Map<String, List<String>> index = new HashMap<>();
    for (Map.Entry<String, QueueSettings> e : settings.entrySet()) {
      QueueSettings s = e.getValue();
      if (s.deadLetterQueue() != null && !s.consumerTokens().isEmpty()) {
        index.computeIfAbsent(s.deadLetterQueue(), k -> new ArrayList<>())
            .addAll(s.consumerTokens());
      }
    }
    index.replaceAll((k, v) -> List.copyOf(v));
    dlqTokens = Map.copyOf(index);
  }

  boolean isDeadLetterQueue(String queue) {
    for (QueueSettings s : settings.values()) {
      if (queue.equals(s.deadLetterQueue())) {
        return true;
      }
    }
    return false;
  }

  QueueSettings find(String queue) {
    return settings.get(queue);
  }

  List<String> names() {
    return new ArrayList<>(new TreeMap<>(settings).keySet());
  }

  /** Up to {@code limit} names after {@code after} (null: from the first), in name order. */
  List<String> names(String after, int limit) {
    TreeSet<String> sorted = new TreeSet<>(settings.keySet());
    List<String> out = new ArrayList<>(Math.min(limit, sorted.size()));
    for (String name : after == null ? sorted : sorted.tailSet(after, false)) {
      if (out.size() == limit) {
        break;
      }
      out.add(name);
    }
    return out;
  }

  /** A queue's settings before a change (null: it was made by it) and after. */
  record Patched(QueueSettings before, QueueSettings after) {}

  /** How often a change is read and merged again when other writers keep changing the queue. */
  private static final int PATCH_TRIES = 10;

  /**
   * Changes a queue's settings by {@code change} applied to what the store holds now (null: no
   * such queue), not to this node's copy, which another node may have changed a moment ago: the
   * result is written only if the stored settings are still those it was made from, and otherwise
   * read and made again. Creates the DLQ queue when missing. A {@code change} that answers null
   * leaves the queue as it is: nothing is written.
   */
  synchronized Patched patch(String queue, UnaryOperator<QueueSettings> change) {
    for (int i = 0; i < PATCH_TRIES; i++) {
      Optional<QueueRecord> stored = store.queuesGet(queue);
      QueueSettings before =
          stored.map(r -> SettingsCodec.fromJson(r.name(), r.settingsJson())).orElse(null);
      QueueSettings after = change.apply(before);
      if (after == null) {
        return new Patched(before, before);
      }
      validate(queue, after);
      keepDeadLetterGuarded(before, after.deadLetterQueue());
      String hash = stored.map(QueueRecord::configHash).orElse(null);
      QueueRecord next = new QueueRecord(queue, SettingsCodec.toJson(after), hash);
      if (store.queuesPutIf(next, stored.map(QueueRecord::settingsJson).orElse(null))) {
        published(queue, after, hash);
        return new Patched(before, after);
      }
    }
    throw new BrokerException.Unavailable(
        "queue \"" + queue + "\" kept changing while this change was made; try again");
  }

  private void validate(String queue, QueueSettings s) {
    List<String> problems = s.problems(queue);
    if (!problems.isEmpty()) {
      throw new BrokerException.Invalid(String.join("; ", problems));
    }
    String loop = DeadLetterLoops.problem(queue, s, settings::get);
    if (loop != null) {
      throw new BrokerException.Invalid(loop);
    }
  }

  /** Validates, persists and publishes new settings, creating the DLQ queue when missing. */
  synchronized void put(String queue, QueueSettings s, String configHash) {
    validate(queue, s);
    keepDeadLetterGuarded(settings.get(queue), s.deadLetterQueue());
    String hash = configHash != null ? configHash : configHashes.get(queue);
    store.queuesPut(new QueueRecord(queue, SettingsCodec.toJson(s), hash));
    published(queue, s, hash);
  }

  /** Settings now stored: in force on this node from here, their DLQ made when missing. */
  private void published(String queue, QueueSettings s, String hash) {
    settings.put(queue, s);
    if (hash != null) {
      configHashes.put(queue, hash);
    }
    ensureDeadLetterQueue(s);
    indexDeadLetterTokens();
  }

  synchronized boolean delete(String queue) {
    keepDeadLetterGuarded(
        store.queuesGet(queue)
            .map(r -> SettingsCodec.fromJson(r.name(), r.settingsJson()))
            .orElse(null),
        null);
    boolean existed = store.queuesDelete(queue);
    settings.remove(queue);
    configHashes.remove(queue);
    indexDeadLetterTokens();
    return existed;
  }

  /**
   * Before a queue stops dead-lettering into its DLQ (it names another or none, or it is deleted),
   * the DLQ takes the queue's consumer tokens as its own: the messages the queue left there stay
   * closed to anyone those tokens did not admit, and open to its consumers. Until then the tokens
   * opened the DLQ already, and it needed one of them, so who may read the DLQ does not change.
   * Its own DLQ, if it has one, is guarded by them from then on too, as by any of its own tokens:
   * the messages that die there came from the queue as well.
   *
   * @param before the queue's settings now (null: there is no such queue)
   * @param nextDeadLetterQueue the DLQ it will name (null: none, or it is deleted)
   */
  private void keepDeadLetterGuarded(QueueSettings before, String nextDeadLetterQueue) {
    if (before == null
        || before.deadLetterQueue() == null
        || before.deadLetterQueue().equals(nextDeadLetterQueue)
        || before.consumerTokens().isEmpty()) {
      return;
    }
    patch(
        before.deadLetterQueue(),
        dlq -> {
          if (dlq == null) {
            return null;
          }
          QueueSettings guarded = dlq.withConsumerTokensAlso(before.consumerTokens());
          return guarded.equals(dlq) ? null : guarded;
        });
  }

  String configHash(String queue) {
    return configHashes.get(queue);
  }

  /**
   * Reads only: the store's writer applies it to each lease it reaps, and may neither wait for
   * this registry's lock nor for a write of its own. A dead move into a DLQ the store lacks is
   * refused there ({@code QueueGone}), and its caller makes the DLQ again off the writer ({@link
   * #restoreDeadLetterQueue}) and tries once more.
   */
  DeadLetterPolicy policy(String queue) {
    QueueSettings s = settings.get(queue);
    if (s == null) {
      // The queue was deleted while messages of it were in flight: keep them rather than drop.
      return new DeadLetterPolicy(0, null);
    }
    return new DeadLetterPolicy(s.maxAttempts(), s.deadLetterQueue());
  }

  /**
   * Makes a dead-letter queue again after the store refused a dead move into it: it was deleted
   * after the move's policy was read. Waits for that deletion to finish (it holds this lock), then
   * makes the queue with a DLQ's defaults unless something made it meanwhile.
   */
  synchronized void restoreDeadLetterQueue(String dlq) {
    QueueSettings known = settings.get(dlq);
    QueueSettings d = known != null ? known : QueueSettings.forDeadLetterQueue();
    store.queuesPut(new QueueRecord(dlq, SettingsCodec.toJson(d), configHashes.get(dlq)));
    if (known == null) {
      settings.put(dlq, d);
      deadLetterQueueCreated.accept(dlq);
    }
  }

  private void ensureDeadLetterQueue(QueueSettings s) {
    String dlq = s.deadLetterQueue();
    if (dlq != null && !settings.containsKey(dlq)) {
      synchronized (this) {
        if (!settings.containsKey(dlq)) {
          QueueSettings d = QueueSettings.forDeadLetterQueue();
          store.queuesPut(new QueueRecord(dlq, SettingsCodec.toJson(d), null));
          settings.put(dlq, d);
          deadLetterQueueCreated.accept(dlq);
        }
      }
    }
  }
}
