package dev.wharf.store.sqlite;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * When the writer writes back the leases held in memory that have come of age ({@link
 * MemoryLeases}): in an empty batch of its own, taking turns with batches of operations, and
 * after a write-back failed or was refused, not again for a while. Used on the writer's thread
 * only.
 */
final class LeaseWriteBacks {
  private static final long WRITE_BACK_RETRY_NANOS = 100_000_000L;

  private final MemoryLeases leases;
  private final WriteHealth health;
  /** Not before this ({@link System#nanoTime}) is a failed write-back of aged leases retried. */
  private long writeBackRetryAt = Long.MIN_VALUE;
  /** Whether the last batch was a write-back of aged leases alone. */
  private boolean wroteBackLast;

  LeaseWriteBacks(MemoryLeases leases, WriteHealth health) {
    this.leases = leases;
    this.health = health;
  }

  /**
   * The next operation, or null when leases held in memory have come of age: then an empty batch
   * runs, which writes them back in a transaction of its own, so that a write-back that fails
   * fails no one's operation. Write-backs and batches of operations take turns while both wait.
   */
  PendingWrite<?> nextOrLeaseWriteBack(LinkedBlockingQueue<PendingWrite<?>> queue)
      throws InterruptedException {
    Long oldest = leases.oldestGrantedNanos();
    // After a failed fsync a write-back is refused at once, and the lease stays due: asking again
    // would spin this thread until the restart, which honours none of these leases anyway.
    if (oldest == null || health.broken() != null) {
      wroteBackLast = false;
      return queue.take();
    }
    long due = Math.max(oldest + leases.maxAgeNanos(), writeBackRetryAt);
    long wait = due - System.nanoTime();
    PendingWrite<?> next = wait > 0 ? queue.poll(wait, TimeUnit.NANOSECONDS)
        : wroteBackLast ? queue.poll() : null;
    wroteBackLast = next == null;
    return next;
  }

  /** A write-back failed or was refused: the next waits a while. */
  void retryLater() {
    writeBackRetryAt = System.nanoTime() + WRITE_BACK_RETRY_NANOS;
  }
}
