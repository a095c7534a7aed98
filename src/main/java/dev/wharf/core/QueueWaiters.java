package dev.wharf.core;

import dev.wharf.store.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The consumers parked on one queue. A commit that makes messages visible bumps the epoch and
 * wakes only as many waiters as the new messages can serve, oldest first.
 *
 * <p>Lost wake-ups are closed by the epoch: a consumer reads it before its (empty) claim and parks
 * only if it is unchanged once registered, so a commit that slipped in between is never missed.
 * A woken consumer always claims once more before giving up, so a wake is never wasted on a
 * consumer that is timing out. Every path that makes messages visible wakes for as many messages
 * as it made visible, so a consumer that takes a full batch need not pass the turn on.
 *
 * <p>A publisher may instead {@link #take} parked consumers before it writes: it then leases
 * messages for them in its own transaction and {@link Waiter#handOver hands them over}, which
 * saves the consumer a wake-up and a claim of its own. Each waiter ends in exactly one of three
 * ways (left on its own, woken, taken), decided by one compare-and-set, so a consumer timing out
 * and a publisher taking it cannot both win; a taken consumer waits for its hand-over, which
 * comes once the publisher's write has returned.
 */
final class QueueWaiters {
  private static final int PARKED = 0;
  private static final int LEFT = 1;
  private static final int WOKEN = 2;
  private static final int TAKEN = 3;

  private final AtomicLong epoch = new AtomicLong();

  private final AtomicLong settingsGeneration = new AtomicLong();
  /** Its queue was deleted: a queue made again under the name has a list of its own. */
  private volatile boolean dropped;
  private final ReentrantLock lock = new ReentrantLock();
  private final LinkedHashSet<Waiter> parked = new LinkedHashSet<>();

  /**
   * A parked consumer: how many messages it wants, and for how long it would lease them. It is
   * either a thread, unparked when it ends, or a callback, run when it ends by a wake or a take.
   */
  static final class Waiter {
    private final Thread thread;
    private final Runnable onSignal;
    final int wants;
    final Duration lease;
    private final AtomicInteger state = new AtomicInteger(PARKED);
    private final CompletableFuture<List<Delivery>> handed = new CompletableFuture<>();

    private Waiter(int wants, Duration lease, Thread thread, Runnable onSignal) {
      this.wants = wants;
      this.lease = lease;
      this.thread = thread;
      this.onSignal = onSignal;
    }

    /**
     * Gives a taken consumer what was leased for it; an empty list sends it back to claiming on
     * its own (the publish failed, or found nothing left to lease).
     */
    void handOver(List<Delivery> deliveries) {
      handed.complete(deliveries);
      signal();
    }

    /** Whether a publisher took this waiter (then {@link #handed()} holds what it was given). */
    boolean taken() {
      return state.get() == TAKEN;
    }

    /** What a publisher handed over; completes once its write has returned. */
    CompletableFuture<List<Delivery>> handed() {
      return handed;
    }

    private void signal() {
      if (thread != null) {
        LockSupport.unpark(thread);
      } else {
        onSignal.run();
      }
    }

    private boolean end(int how) {
      return state.compareAndSet(PARKED, how);
    }
  }

  /**
   * A waiter with no thread behind it: {@code onSignal} runs, once, on the thread that wakes or
   * hands it over; it must not block. Schedule its timeout, then {@link #register} it.
   */
  static Waiter callback(int wants, Duration lease, Runnable onSignal) {
    return new Waiter(wants, lease, null, onSignal);
  }

  /**
   * Parks a {@link #callback} waiter, unless it already left, or the epoch moved past
   * {@code seenEpoch} (then it is signalled at once, as woken).
   */
  void register(Waiter w, long seenEpoch) {
    lock.lock();
    try {
      if (w.state.get() != PARKED) {
        return;
      }
      parked.add(w);
    } finally {
      lock.unlock();
    }
    if (epoch.get() != seenEpoch && w.end(WOKEN)) {
      remove(w);
      w.signal();
    }
  }

  /**
   * A {@link #callback} waiter gives up (its time ran out, or its consumer left). True when it left
   * before any wake or take: nothing will signal it. False when one did: the signal carries on.
   */
  boolean leave(Waiter w) {
    if (!w.end(LEFT)) {
      return false;
    }
    remove(w);
    return true;
  }

  private void remove(Waiter w) {
    lock.lock();
    try {
      parked.remove(w);
    } finally {
      lock.unlock();
    }
  }

  long epoch() {
    return epoch.get();
  }

  /**
   * Marks the list as its deleted queue's, and wakes everyone on it. A receive that took it before
   * the deletion, and found the name in use again after (the queue made anew), must not park here:
   * no publish, change or stop reaches this list any more.
   */
  void drop() {
    dropped = true;
    wakeAll();
  }

  boolean dropped() {
    return dropped;
  }

  /** Moves on each change of the queue's settings or of who may consume it. */
  long settingsGeneration() {
    return settingsGeneration.get();
  }

  /**
   * The queue's settings or consumer tokens changed: every parked consumer ends its wait with
   * nothing (see {@link ParkedReceive}), so the next receive is authorised and leased by the new
   * ones, not by what held when it parked.
   */
  void settingsChanged() {
    settingsGeneration.incrementAndGet();
    wakeAll();
  }

  int size() {
    lock.lock();
    try {
      return parked.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Parks the calling thread for at most {@code nanos}, unless the epoch moved past seenEpoch.
   *
   * @return what a publisher handed over, or null when the consumer was woken or timed out and
   *     should claim for itself
   */
  List<Delivery> await(long seenEpoch, int wants, Duration lease, long nanos) {
    Waiter w = new Waiter(wants, lease, Thread.currentThread(), null);
    lock.lock();
    try {
      parked.add(w);
    } finally {
      lock.unlock();
    }
    if (epoch.get() == seenEpoch) {
      long deadline = System.nanoTime() + nanos;
      long left;
      while (w.state.get() == PARKED && (left = deadline - System.nanoTime()) > 0) {
        LockSupport.parkNanos(this, left);
        if (Thread.currentThread().isInterrupted()) {
          break;
        }
      }
    }
    lock.lock();
    try {
      parked.remove(w);
    } finally {
      lock.unlock();
    }
    if (w.end(LEFT) || w.state.get() == WOKEN) {
      return null;
    }
    // Taken: the publisher's write is under way and bounded; its leases are this consumer's now.
    return w.handed.join();
  }

  /**
   * Takes parked consumers, oldest first, until they want at least {@code messages} between them.
   * Each must be {@link Waiter#handOver handed} a result, even an empty one.
   */
  List<Waiter> take(int messages) {
    // Every publish asks, and nearly always nobody waits: no allocation for that answer.
    List<Waiter> out = null;
    int wanted = 0;
    lock.lock();
    try {
      var it = parked.iterator();
      while (wanted < messages && it.hasNext()) {
        Waiter w = it.next();
        it.remove();
        if (w.end(TAKEN)) {
          if (out == null) {
            out = new ArrayList<>(1);
          }
          out.add(w);
          wanted += w.wants;
        }
      }
    } finally {
      lock.unlock();
    }
    return out == null ? List.of() : out;
  }

  /**
   * Wakes every parked consumer (the queue is gone, or the server stops: each must hear so, not
   * wait on).
   */
  void wakeAll() {
    epoch.incrementAndGet();
    List<Waiter> all;
    lock.lock();
    try {
      all = new ArrayList<>(parked);
      parked.clear();
    } finally {
      lock.unlock();
    }
    for (Waiter w : all) {
      if (w.end(WOKEN)) {
        w.signal();
      }
    }
  }

  /** Wakes enough parked consumers to take {@code messages} new messages. */
  void wake(int messages) {
    epoch.incrementAndGet();
    int left = messages;
    while (left > 0) {
      Waiter w;
      lock.lock();
      try {
        var it = parked.iterator();
        if (!it.hasNext()) {
          return;
        }
        w = it.next();
        it.remove();
      } finally {
        lock.unlock();
      }
      if (w.end(WOKEN)) {
        w.signal();
        left -= w.wants;
      }
    }
  }
}
