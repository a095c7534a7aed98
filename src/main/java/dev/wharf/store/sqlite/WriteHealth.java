package dev.wharf.store.sqlite;

import dev.wharf.store.StoreException;

/**
 * Whether the writer's writes are failing (a full disk, a failed fsync), for readiness: reads
 * can go on answering while every write fails, so a read alone cannot tell. A failure stands
 * until a batch committed after it is made durable.
 */
final class WriteHealth {
  /** The failure's reason, or null while writes work; read without the lock on every round. */
  private volatile String failure;

  /** The number of the last batch committed when the failure happened. */
  private long failedAfter;

  /** When a failure that stands may be logged again. */
  private long quietUntilNanos;

  private static final long LOG_EVERY_NANOS = 60_000_000_000L;

  /** How much of a write failure to log. */
  enum Log {
    FULL,
    LINE,
    QUIET
  }

  /**
   * The first failure of an outage (none stood before it) in full; while one stands, a line a
   * minute.
   */
  synchronized Log logWorthy(long nowNanos) {
    if (failure == null) {
      quietUntilNanos = nowNanos + LOG_EVERY_NANOS;
      return Log.FULL;
    }
    if (nowNanos - quietUntilNanos >= 0) {
      quietUntilNanos = nowNanos + LOG_EVERY_NANOS;
      return Log.LINE;
    }
    return Log.QUIET;
  }

  /**
   * @param lastCommitted the number of the last batch committed (or being synced) when it failed:
   *     only a later batch made durable shows that writes work again
   */
  synchronized void failed(long lastCommitted, String why) {
    failure = StoreException.firstLine(why);
    failedAfter = Math.max(failedAfter, lastCommitted);
  }

  /**
   * An fsync made batches up to {@code number} durable.
   *
   * @return whether that ended a failure: writes work again
   */
  synchronized boolean durable(long number) {
    if (number > failedAfter && failure != null) {
      failure = null;
      return true;
    }
    return false;
  }

  /**
   * Whether {@code e} is SQLite's full disk (or a database at its page limit): an operator's
   * matter, which a line says better than a trace of where it was noticed.
   */
  static boolean diskFull(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.sqlite.SQLiteException s
          && (s.getResultCode().code & 0xff) == org.sqlite.SQLiteErrorCode.SQLITE_FULL.code) {
        return true;
      }
    }
    return false;
  }

  /** Why writes are failing, or null when the last of them worked. */
  String failure() {
    return failure;
  }
}
