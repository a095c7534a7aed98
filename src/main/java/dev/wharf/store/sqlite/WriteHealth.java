package dev.wharf.store.sqlite;

import dev.wharf.store.StoreException;

/**
 * Whether the writer's writes are failing (a full disk, a failed fsync), for readiness: reads
 * can go on answering while every write fails, so a read alone cannot tell. A failure stands
 * until a batch committed after it is made durable, but a failed fsync's, which stands until
 * the server restarts ({@link #broke}).
 */
final class WriteHealth {
  /** The failure's reason, or null while writes work; read without the lock on every round. */
  private volatile String failure;

  /** Why writes are refused until the server restarts, or null: see {@link #broke}. */
  private volatile String broken;

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
   * An fsync of the WAL or of the database file failed. On Linux the pages it covered may then be
   * marked clean without being on disk, so a later fsync can succeed without writing them: SQLite's
   * recovery after a crash would stop at the first frame missing from the disk and drop every
   * later one, publishes answered after the failure among them, and a checkpoint could copy what
   * the kernel reads back from the disk into the database. So every write is refused from here on
   * and no checkpoint runs; each write answered before the failure was covered by an fsync that
   * worked, and a restart goes on from what the files hold. The failure stands for good.
   *
   * @return whether this was the first such failure (the one worth a trace in the log)
   */
  synchronized boolean broke(String why) {
    boolean first = broken == null;
    if (first) {
      broken = "fsync failed: " + StoreException.firstLine(why)
          + "; writes are refused until the server restarts";
    }
    failure = broken;
    failedAfter = Long.MAX_VALUE;
    return first;
  }

  /** Why writes are refused until the server restarts, or null while they are not. */
  String broken() {
    return broken;
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

  /** Whether {@code e} is SQLite's report of an fsync of its own that failed. */
  static boolean syncFailed(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.sqlite.SQLiteException s
          && (s.getResultCode() == org.sqlite.SQLiteErrorCode.SQLITE_IOERR_FSYNC
              || s.getResultCode() == org.sqlite.SQLiteErrorCode.SQLITE_IOERR_DIR_FSYNC)) {
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
