package dev.wharf.store.sqlite;

import dev.wharf.store.Delivery;
import dev.wharf.store.StoreException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The writer's second thread, which makes its commits durable: it takes every batch committed
 * since its last round, fsyncs the WAL once for them all, and only then answers their callers
 * (see {@link GroupCommitWriter} on why the fsync is pipelined). It also knows which messages are
 * durable, so that a claim of messages an fsync has covered is answered at its commit, and a
 * claim that waited is answered by the first fsync that covers its messages.
 */
final class FsyncThread {
  // The writer's logger: an operator follows both of the writer's threads under one name.
  private static final Logger LOG = Logger.getLogger(GroupCommitWriter.class.getName());

  private final WalSync walSync;
  private final WriteHealth health;
  private final LinkedBlockingQueue<Runnable> committed = new LinkedBlockingQueue<>();
  private final Thread thread;
  /** The highest seq whose publish an fsync has covered. */
  private volatile long durableSeq;
  /**
   * Seqs replaced by key in batches not yet covered by an fsync, each with the number of the last
   * batch that replaced it: an fsync clears only the marks of the batches it covers.
   */
  private final Map<Long, Long> upsertsInFlight = new ConcurrentHashMap<>();
  /**
   * Committed claims that lease a message not yet durable, checked after every fsync. Each is
   * also in its own batch's {@link Completion}, which answers it if no earlier fsync did.
   */
  private final ConcurrentLinkedQueue<Waiting> awaitingDurable = new ConcurrentLinkedQueue<>();
  /** Told how long each fsync took, and each batch's wait for it; set by metrics. */
  private volatile WriterStages stages = WriterStages.NONE;

  /** A committed claim and its deliveries, to answer once every message in them is durable. */
  private record Waiting(PendingWrite<?> pending, List<?> deliveries) {}

  /** @param durableSeq the highest seq already durable: every one in the database */
  FsyncThread(WalSync walSync, WriteHealth health, long durableSeq) {
    this.walSync = walSync;
    this.health = health;
    this.durableSeq = durableSeq;
    this.thread = Thread.ofPlatform().name("wharf-sqlite-fsync").daemon().unstarted(this::syncLoop);
  }

  void start() {
    thread.start();
  }

  Thread thread() {
    return thread;
  }

  void observeStages(WriterStages observer) {
    stages = observer;
  }

  /** A batch committed: its answers go out once an fsync has covered it. */
  void committed(Completion completion) {
    committed.add(completion);
  }

  /** Marks the seqs a batch replaced by key as not durable until an fsync covers the batch. */
  void upsertsInFlight(Set<Long> upserted, long number) {
    upserted.forEach(seq -> upsertsInFlight.put(seq, number));
  }

  /** A committed claim that leases a message not yet durable: answered once all of them are. */
  void awaitDurable(PendingWrite<?> pending, List<?> deliveries) {
    awaitingDurable.add(new Waiting(pending, deliveries));
  }

  private void syncLoop() {
    List<Runnable> ready = new ArrayList<>();
    boolean stopping = false;
    while (!stopping) {
      try {
        ready.add(committed.take());
      } catch (InterruptedException e) {
        break;
      }
      committed.drainTo(ready);
      // What came before the stop is made durable and answered first.
      stopping = ready.remove(STOP_SYNCING);
      if (ready.isEmpty()) {
        continue;
      }
      String broken = health.broken();
      if (broken != null) {
        // Committed after the failure: nothing vouches for them now (see WriteHealth.broke).
        failAll(ready, new StoreException(broken));
        continue;
      }
      long began = System.nanoTime();
      try {
        // Batches that changed no row (a reaper's pass that found nothing, claims whose leases
        // live in memory) appended nothing to the WAL: what they read was synced in an earlier
        // round, since rounds take commits in order. An fsync here would only flush the disk's
        // cache, about 20 times a second on an idle server.
        if (ready.stream().anyMatch(r -> r instanceof Completion c && c.wrote())) {
          walSync.sync();
          stages.synced().accept(System.nanoTime() - began);
          if (health.failure() != null && health.durable(lastNumber(ready))) {
            // The outage's end, for whoever read its start in the log.
            LOG.info("writes work again");
          }
        }
      } catch (java.io.IOException | RuntimeException e) {
        // The commits happened but may not be durable: never claim they are.
        if (health.broke(String.valueOf(e.getMessage()))) {
          LOG.log(Level.SEVERE, "fsync of the WAL failed: writes are refused until the server"
              + " restarts; check the disk", e);
        }
        failAll(ready, new StoreException(health.broken(), e));
        continue;
      }
      long synced = System.nanoTime();
      for (Runnable r : ready) {
        if (r instanceof Completion c) {
          stages.madeDurable().accept(synced - c.committedNanos());
          durableSeq = Math.max(durableSeq, c.maxSeq());
          c.upserted().forEach(seq -> upsertsInFlight.remove(seq, c.number()));
        }
      }
      answerNowDurable();
      ready.forEach(Runnable::run);
      ready.clear();
    }
  }

  private static void failAll(List<Runnable> ready, StoreException failure) {
    for (Runnable r : ready) {
      if (r instanceof Completion c) {
        c.fail(failure);
      }
    }
    ready.clear();
  }

  /** The number of the last batch among those an fsync round covers (0 for none). */
  private static long lastNumber(List<Runnable> round) {
    long last = 0;
    for (Runnable r : round) {
      if (r instanceof Completion c) {
        last = Math.max(last, c.number());
      }
    }
    return last;
  }

  /**
   * Answers for one committed batch, run once the fsync covering it returned, with what that
   * fsync made durable: messages up to {@code maxSeq}, and the key upserts of the batch.
   */
  record Completion(
      List<PendingWrite<?>> batch,
      Object[] results,
      long number,
      long maxSeq,
      Set<Long> upserted,
      long committedNanos,
      boolean wrote)
      implements Runnable {
    @Override
    public void run() {
      for (int i = 0; i < batch.size(); i++) {
        PendingWrite.complete(batch.get(i), results[i]);
      }
    }

    void fail(StoreException e) {
      batch.forEach(p -> p.done().completeExceptionally(e));
    }
  }

  /** Answers the waiting claims whose messages are all durable now. */
  void answerNowDurable() {
    for (Iterator<Waiting> it = awaitingDurable.iterator(); it.hasNext(); ) {
      Waiting w = it.next();
      if (w.pending().done().isDone()) {
        it.remove();
      } else if (onDiskAlready(w.deliveries())) {
        PendingWrite.complete(w.pending(), w.deliveries());
        it.remove();
      }
    }
  }

  /** Whether every message a claim leased was published (and last changed by key) on disk. */
  boolean onDiskAlready(List<?> deliveries) {
    long durable = durableSeq;
    for (Object o : deliveries) {
      long seq = ((Delivery) o).message().seq();
      if (seq > durable || upsertsInFlight.containsKey(seq)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Tells the fsync thread to stop once it has synced what came before. It is not interrupted:
   * an interrupt during {@code force} closes the WAL's channel, failing that last fsync and the
   * answers waiting for it.
   */
  private static final Runnable STOP_SYNCING = () -> {};

  /** Stops the thread once it has made durable, and answered, every batch committed before. */
  void stop() throws InterruptedException {
    committed.add(STOP_SYNCING);
    thread.join(5000);
  }
}
