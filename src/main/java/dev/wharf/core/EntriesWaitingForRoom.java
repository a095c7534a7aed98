package dev.wharf.core;

import dev.wharf.store.StorageFull;
import dev.wharf.store.StoreException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Config entries a start could not write for lack of room on the disk, applied once there is
 * room. A server that stays up on a full disk still answers reads and lets an operator purge
 * through the API to make room, where one that exits would be restarted into the same failure
 * over and over. Entries keep their order: one after an entry kept waits too if it needs a write,
 * since it may name the queue kept as its dead-letter queue.
 */
final class EntriesWaitingForRoom {
  private static final Logger LOG = Logger.getLogger(EntriesWaitingForRoom.class.getName());

  private record Entry(String queue, QueueSettings settings, QueueSettingsPatch named) {}

  private final QueueChanges changes;
  private final ScheduledExecutorService timers;
  /** In the order they apply; guards itself and {@link #retry}. */
  private final ArrayDeque<Entry> waiting = new ArrayDeque<>();
  /** The task applying {@link #waiting} each second, while it holds any. */
  private ScheduledFuture<?> retry;

  EntriesWaitingForRoom(QueueChanges changes, ScheduledExecutorService timers) {
    this.changes = changes;
    this.timers = timers;
  }

  /**
   * Applies the entry now, or keeps it for later when the disk has no room for it or an entry
   * before it waits; returns whether it is in force now.
   */
  boolean apply(String queue, QueueSettings settings, QueueSettingsPatch named) {
    synchronized (waiting) {
      if (waiting.isEmpty() || changes.configApplied(queue, named)) {
        try {
          changes.applyConfiguredQueue(queue, settings, named);
          return true;
        } catch (StoreException e) {
          if (!StorageFull.in(e)) {
            throw e;
          }
          LOG.warning("the disk is full: queue " + queue + " from the config file is applied once"
              + " there is room; /readyz answers 503 until then ("
              + StoreException.firstLine(e.getMessage()) + ")");
        }
      }
      waiting.add(new Entry(queue, settings, named));
      if (retry == null) {
        try {
          retry = timers.scheduleWithFixedDelay(this::applyWaiting, 1, 1, TimeUnit.SECONDS);
        } catch (RejectedExecutionException closed) {
          // Closing: nothing is applied any more.
        }
      }
      return false;
    }
  }

  /** Applies, in order, the entries kept, up to the first that still finds no room. */
  void applyWaiting() {
    synchronized (waiting) {
      while (!waiting.isEmpty()) {
        Entry e = waiting.getFirst();
        try {
          changes.applyConfiguredQueue(e.queue(), e.settings(), e.named());
          LOG.info("queue " + e.queue() + " from the config file is applied");
        } catch (StoreException failed) {
          // Still no room, or another storage failure: the next round tries again.
          return;
        } catch (RuntimeException refused) {
          // Settings checked at start-up that no longer go with the queue's others (changed
          // through the API since): what a start would have refused, said where it is seen.
          LOG.log(Level.SEVERE, "queue " + e.queue() + " from the config file cannot be applied;"
              + " fix its entry and restart", refused);
        }
        waiting.removeFirst();
      }
      if (retry != null) {
        retry.cancel(false);
        retry = null;
      }
    }
  }

  /**
   * As {@link Broker#unready}: {@code storage}, the store's own reason or null, and the entries
   * kept, named.
   */
  String unready(String storage) {
    List<String> waiting = names();
    if (waiting.isEmpty()) {
      return storage;
    }
    String queuesWait = "queues from the config file wait for room on the disk: "
        + String.join(", ", waiting);
    return storage == null ? queuesWait : storage + "; " + queuesWait;
  }

  /** The queues of the entries kept, in the order they apply. */
  List<String> names() {
    synchronized (waiting) {
      return waiting.stream().map(Entry::queue).toList();
    }
  }
}
