package dev.wharf.store.sqlite;

import dev.wharf.store.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps the WAL small. Two halves, because SQLite restarts the WAL from its beginning only when a
 * write transaction begins with every frame already copied back into the database file:
 *
 * <ul>
 *   <li>This thread copies frames back continuously with PASSIVE checkpoints on its own
 *       connection. Those never block the writer, but under a steady stream of commits they never
 *       quite catch up.
 *   <li>The writer, between two batches, calls {@link #restartIfLarge} once the WAL holds more than
 *       {@link #RESTART_BYTES}: a RESTART checkpoint from the writer's own connection copies the
 *       few frames the passive passes have not reached, and the writer's next commit starts the
 *       WAL over.
 * </ul>
 *
 * <p>Why the writer and not this thread runs the RESTART: a RESTART takes SQLite's write lock, and
 * a writer transaction that read first and then meets a held write lock fails with {@code
 * SQLITE_BUSY} at once (the busy handler is not consulted on that upgrade). Only the writer ever
 * takes the write lock, so that cannot happen.
 *
 * <p>A passive pass that does not copy the whole WAL back, which under a steady stream of commits
 * is every one, leaves the pages it wrote to the database file unsynced: SQLite syncs that file
 * only after a checkpoint that completes. They would pile up in the page cache until the writer's
 * RESTART synced them all at once, while holding the writer: under batch publishes that sync took
 * up to 330 ms and restarts 40-870 ms, and a publish that waited for one saw a p99 of 700-900 ms
 * (a 2-core VM whose disk syncs 4 KB in ~0.3 ms). So each pass syncs the database file itself, on
 * this thread, and a restart finds little to sync.
 *
 * <p>A bounded WAL means the writer overwrites pages the kernel already holds instead of growing
 * the file (where every unaligned frame write zero-fills new pages), and a restart after a crash
 * replays at most a few megabytes.
 */
final class Checkpointer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Checkpointer.class.getName());
  /**
   * WAL size past which the writer restarts it: 256 MB. Each restart holds the writer while it
   * copies the frames the passive passes have not reached and syncs the database file, and what
   * it copies is the last pass's worth, whatever the bound. Under batch publishes at 128 MB that
   * was a restart about every second at 55-300 ms each (median ~140 ms, the disk already writing
   * ~350 MB/s), and 256 MB, half as many restarts, took batch publishes ~8% faster; at 32 MB it
   * had been five a second. (Those restarts also synced every page the passes had copied since the
   * last; now each pass syncs its own, and restarts under batch publishes average ~120 ms where
   * they averaged ~340 on the same disk. The bound was not measured again since.) Recovery after a
   * crash reads at most about this much (1M queued, killed under load with 317-342 MB of WAL file:
   * serving again in 1.4-2.2 s on a slow hour).
   */
  static final long RESTART_BYTES = 256L << 20;

  /** {@link #RESTART_BYTES} in frames of the database's page size. */
  static long restartFrames(int pageSize) {
    return RESTART_BYTES / pageSize;
  }

  /**
   * A pass copies the newest version of every page written since the last one, so a page changed
   * in every batch (the right edge of the table and its indexes, the head of a queue) is copied
   * once per pass, and each pass also syncs the database file. Every 20 ms the checkpointer took
   * twice the CPU under a steady consume and acked ~15% fewer messages; the writer's RESTART
   * still bounds the WAL.
   */
  private static final long PASS_INTERVAL_MS = 100;

  /** After a RESTART that found readers still on the WAL, the writer leaves it this long. */
  private static final long BUSY_BACKOFF_NANOS = 1_000_000_000L;

  private final Connection conn;
  /** The database file, synced after each pass: see the class comment. */
  private final FileChannel database;
  private final long restartFrames;
  /** One checkpoint at a time; the writer only tries it, so it never waits for a passive pass. */
  private final ReentrantLock running = new ReentrantLock();

  private final Thread thread;
  private volatile boolean open = true;
  /** Frames in the WAL as the last checkpoint saw them. */
  private volatile long walFrames;

  /** The WAL's length when the writer last restarted it, until its next commit starts it over. */
  private volatile long restartedAt = -1;

  /** Writer thread only: no RESTART before this System.nanoTime. */
  private long nextRestartNanos;

  /** Restarts run and the time they held the writer, and passes run and their time: metrics. */
  private volatile long restarts;
  private volatile long restartNanos;
  private volatile long passes;
  private volatile long passNanos;
  private volatile long databaseSyncs;
  private volatile long databaseSyncNanos;
  /** What the last pass reported copied back: a pass that copies more syncs the file. */
  private long copiedBefore;

  /** Shared with the writer: no checkpoint after a failed fsync ({@link WriteHealth#broke}). */
  private final WriteHealth health;

  /**
   * @param background whether this class's own thread runs passive passes
   * @param afterPass run on this thread after each background pass, whether it worked or not:
   *     upkeep that may take a while but must not hold the writer
   */
  Checkpointer(
      String url,
      Path databaseFile,
      long restartFrames,
      boolean background,
      WriteHealth health,
      Runnable afterPass)
      throws SQLException, IOException {
    this.health = health;
    this.afterPass = afterPass;
    this.restartFrames = restartFrames;
    this.nextRestartNanos = System.nanoTime();
    database = FileChannel.open(databaseFile, StandardOpenOption.READ);
    conn = SqliteConnections.open(url);
    try (Statement s = conn.createStatement()) {
      s.execute("PRAGMA synchronous = NORMAL");
      s.execute("PRAGMA busy_timeout = 5000");
    }
    thread =
        background
            ? Thread.ofPlatform().name("wharf-sqlite-checkpoint").daemon().start(this::loop)
            : null;
  }

  private final Runnable afterPass;

  /** What the pass loop waits on between passes; {@link #close} wakes it. */
  private final Object stop = new Object();

  private void loop() {
    // A full disk fails every pass, ten a second: the first failure of a run of them is logged
    // (with its trace, but for a full disk, which a line says), then a line a minute until a
    // pass works again.
    boolean failing = false;
    long quietUntil = 0;
    while (open) {
      try {
        synchronized (stop) {
          if (open) {
            stop.wait(PASS_INTERVAL_MS);
          }
        }
        if (!open) {
          return;
        }
        try {
          passOnce();
          failing = false;
        } finally {
          // After a failed pass too: on a full disk every pass fails, and the room is read then.
          afterPass.run();
        }
      } catch (InterruptedException e) {
        return;
      } catch (SQLException e) {
        long now = System.nanoTime();
        if (health.broken() != null) {
          // Logged where the fsync failed; no pass runs again.
          failing = true;
        } else if (!failing && WriteHealth.diskFull(e)) {
          LOG.warning("checkpoint failed: the disk is full; will retry ("
              + StoreException.firstLine(e.getMessage()) + ")");
          quietUntil = now + 60_000_000_000L;
        } else if (!failing) {
          LOG.log(Level.WARNING, "checkpoint failed; will retry", e);
          quietUntil = now + 60_000_000_000L;
        } else if (now - quietUntil >= 0) {
          LOG.warning("checkpoints still failing; will retry: " + e);
          quietUntil = now + 60_000_000_000L;
        }
        failing = true;
      }
    }
  }

  /**
   * One passive pass: copies what it can, syncs the database file when it copied anything, and
   * notes how long the WAL is.
   */
  void passOnce() throws SQLException {
    if (health.broken() != null) {
      return;
    }
    running.lock();
    long began = System.nanoTime();
    try {
      long frames;
      long copied;
      try (Statement s = conn.createStatement();
          ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
        rs.next();
        frames = Math.max(rs.getLong(2), 0);
        copied = rs.getLong(3);
      }
      // Until the writer's next commit starts the WAL over, it still looks as long as it was.
      walFrames = frames == restartedAt ? 0 : frames;
      // The frames copied back so far, in this WAL's generation: a pass that added none wrote
      // nothing to the database file.
      if (copied > 0 && copied != copiedBefore) {
        syncDatabase();
      }
      copiedBefore = copied;
    } catch (SQLException e) {
      brokeIfSync(e);
      throw e;
    } finally {
      passNanos += System.nanoTime() - began;
      passes++;
      running.unlock();
    }
  }

  private void syncDatabase() throws SQLException {
    long began = System.nanoTime();
    try {
      database.force(false);
    } catch (IOException e) {
      if (health.broke("of the database file: " + e.getMessage())) {
        LOG.log(Level.SEVERE, "fsync of the database file failed: writes are refused until the"
            + " server restarts; check the disk", e);
      }
      throw new SQLException("cannot sync the database file after a checkpoint", e);
    } finally {
      databaseSyncNanos += System.nanoTime() - began;
      databaseSyncs++;
    }
  }

  /**
   * Run by the writer thread between batches, with no transaction of its own open: when the WAL is
   * over the limit and no passive pass is running, copies the rest back so the next commit starts
   * the WAL over.
   */
  void restartIfLarge(Connection writer) throws SQLException {
    restart(writer, false);
  }

  /**
   * As {@link #restartIfLarge}, but for any size of WAL when {@code makingRoom}: on a full disk
   * a purge's chunks would each append to a WAL that never starts over, and run out of the room
   * given to them, where a WAL started over takes the next chunk's pages in room it already has.
   */
  void restart(Connection writer, boolean makingRoom) throws SQLException {
    if (health.broken() != null
        || (!makingRoom && walFrames <= restartFrames)
        || System.nanoTime() - nextRestartNanos < 0
        || !lock(makingRoom)) {
      return;
    }
    try {
      writer.setAutoCommit(true);
      long began = System.nanoTime();
      try {
        long frames;
        try {
          frames = checkpoint(writer, "RESTART");
        } catch (SQLException e) {
          brokeIfSync(e);
          if (makingRoom && WriteHealth.diskFull(e)) {
            // No room for the pages it would copy: the deletion's next chunk tries on its own.
            return;
          }
          throw e;
        }
        restartNanos += System.nanoTime() - began;
        restarts++;
        if (frames >= 0) {
          restartedAt = frames;
          walFrames = 0;
        } else {
          // A reader kept the WAL (the RESTART waited out the busy timeout): not after every batch.
          nextRestartNanos = System.nanoTime() + BUSY_BACKOFF_NANOS;
        }
      } finally {
        writer.setAutoCommit(false);
      }
    } finally {
      running.unlock();
    }
  }

  /**
   * The writer does not wait for a passive pass, but for one making room for a deletion on a full
   * disk: there a skipped restart has the deletion's frames take new room, not the WAL's own.
   */
  private boolean lock(boolean makingRoom) {
    if (!makingRoom) {
      return running.tryLock();
    }
    try {
      return running.tryLock(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** A checkpoint syncs the WAL before it copies frames back: SQLite's own fsync may fail. */
  private void brokeIfSync(SQLException e) {
    if (WriteHealth.syncFailed(e) && health.broke(String.valueOf(e.getMessage()))) {
      LOG.log(Level.SEVERE, "an fsync failed in a checkpoint: writes are refused until the"
          + " server restarts; check the disk", e);
    }
  }

  /** Frames in the WAL as the last checkpoint saw them. */
  long walFrames() {
    return walFrames;
  }

  long restarts() {
    return restarts;
  }

  long restartNanos() {
    return restartNanos;
  }

  long passes() {
    return passes;
  }

  long passNanos() {
    return passNanos;
  }

  long databaseSyncs() {
    return databaseSyncs;
  }

  long databaseSyncNanos() {
    return databaseSyncNanos;
  }

  /**
   * Runs a checkpoint that copies every frame back ({@code mode} RESTART or TRUNCATE) and returns
   * the frames in the WAL, or -1 when it could not copy them all (readers still on the WAL, or it
   * is not in WAL mode).
   */
  private static long checkpoint(Connection c, String mode) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(" + mode + ")")) {
      if (!rs.next()) {
        return -1;
      }
      boolean busy = rs.getInt(1) != 0;
      long frames = rs.getLong(2);
      long copied = rs.getLong(3);
      return busy || copied != frames ? -1 : frames;
    }
  }

  @Override
  public void close() {
    open = false;
    try {
      if (thread != null) {
        // Woken, not interrupted: an interrupt during the database file's force would close its
        // channel under a pass.
        synchronized (stop) {
          stop.notifyAll();
        }
        thread.join(5000);
      }
      if (health.broken() == null) {
        try (Statement s = conn.createStatement()) {
          s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        }
      }
      conn.close();
      database.close();
    } catch (IOException e) {
      LOG.log(Level.FINE, "closing the database file", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SQLException e) {
      LOG.log(Level.FINE, "final checkpoint skipped", e);
    }
  }
}
