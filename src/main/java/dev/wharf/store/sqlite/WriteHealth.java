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

  /** When a failure may be logged again. */
  private long quietUntilNanos;

  /** Whether any failure was logged yet: till then none is quiet. */
  private boolean everLogged;

  /** Whether the failure that stands was logged, so that its end is worth a line too. */
  private boolean outageLogged;

  private static final long LOG_EVERY_NANOS = 60_000_000_000L;

  /** How much of a write failure to log. */
  enum Log {
    FULL,
    LINE,
    QUIET
  }

  /**
   * The first failure of an outage (none stood before it) in full; then a line a minute, also
   * across outages: a disk with room for small writes but not large ones fails and recovers
   * many times a second, and each would otherwise log its start and its end.
   */
  synchronized Log logWorthy(long nowNanos) {
    if (everLogged && nowNanos - quietUntilNanos < 0) {
      return Log.QUIET;
    }
    everLogged = true;
    quietUntilNanos = nowNanos + LOG_EVERY_NANOS;
    outageLogged = true;
    return failure == null ? Log.FULL : Log.LINE;
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
   * @return whether that ended a failure whose start (or a line since) was logged
   */
  synchronized boolean durable(long number) {
    if (number > failedAfter && failure != null) {
      failure = null;
      boolean logged = outageLogged;
      outageLogged = false;
      return logged;
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
