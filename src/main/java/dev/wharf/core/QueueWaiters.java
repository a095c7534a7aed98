package dev.wharf.core;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
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
 */
final class QueueWaiters {
  private final AtomicLong epoch = new AtomicLong();
  private final ReentrantLock lock = new ReentrantLock();
  private final LinkedHashSet<Waiter> parked = new LinkedHashSet<>();

  private static final class Waiter {
    final Thread thread = Thread.currentThread();
    final int wants;
    volatile boolean woken;

    Waiter(int wants) {
      this.wants = wants;
    }
  }

  long epoch() {
    return epoch.get();
  }

  int size() {
    lock.lock();
    try {
      return parked.size();
    } finally {
      lock.unlock();
    }
  }

  /** Parks the calling thread for at most {@code nanos}, unless the epoch moved past seenEpoch. */
  void await(long seenEpoch, int wants, long nanos) {
    Waiter w = new Waiter(wants);
    lock.lock();
    try {
      parked.add(w);
    } finally {
      lock.unlock();
    }
    try {
      if (epoch.get() != seenEpoch) {
        return;
      }
      long deadline = System.nanoTime() + nanos;
      long left;
      while (!w.woken && (left = deadline - System.nanoTime()) > 0) {
        LockSupport.parkNanos(this, left);
        if (Thread.interrupted()) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    } finally {
      lock.lock();
      try {
        parked.remove(w);
      } finally {
        lock.unlock();
      }
    }
  }

  /** Wakes every parked consumer (the queue is gone: each must hear so, not wait on). */
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
      w.woken = true;
      LockSupport.unpark(w.thread);
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
      w.woken = true;
      LockSupport.unpark(w.thread);
      left -= w.wants;
    }
  }
}
