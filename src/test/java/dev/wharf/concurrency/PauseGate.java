package dev.wharf.concurrency;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where the driver and the workers meet. Workers pass {@link #checkpoint} between calls; the
 * driver {@link #pause pauses} them all there to check a quiescent state (no call under way), and
 * steps the clock only after the workers have done some calls since the last step, so time moves
 * with the work and not with the machine's speed. Every wait is bounded: a stuck worker fails
 * the run instead of hanging it.
 */
final class PauseGate {
  private static final long STUCK_SECONDS = 30;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private int working;
  private int parked;
  private boolean pausing;
  private boolean stopped;
  private long calls;

  PauseGate(int workers) {
    this.working = workers;
  }

  /** A worker between calls: waits here while the driver checks. False once the run stops. */
  boolean checkpoint() throws InterruptedException {
    lock.lock();
    try {
      while (pausing && !stopped) {
        parked++;
        changed.signalAll();
        try {
          changed.await();
        } finally {
          parked--;
        }
      }
      return !stopped;
    } finally {
      lock.unlock();
    }
  }

  void called() {
    lock.lock();
    try {
      calls++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  void finished() {
    lock.lock();
    try {
      working--;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Waits until the workers have made {@code more} calls since {@code since}; returns all. */
  long awaitCalls(long since, long more) throws InterruptedException {
    lock.lock();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STUCK_SECONDS);
      while (calls < since + more && working > 0) {
        awaitUntil(deadline, "workers made no progress");
      }
      return calls;
    } finally {
      lock.unlock();
    }
  }

  void pause() throws InterruptedException {
    lock.lock();
    try {
      pausing = true;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STUCK_SECONDS);
      while (parked < working) {
        awaitUntil(deadline, "workers did not reach the pause");
      }
    } finally {
      lock.unlock();
    }
  }

  void resume() {
    lock.lock();
    try {
      pausing = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  void stop() {
    lock.lock();
    try {
      stopped = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void awaitUntil(long deadline, String what) throws InterruptedException {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new IllegalStateException(what + " within " + STUCK_SECONDS + " s");
    }
    changed.awaitNanos(left);
  }
}
