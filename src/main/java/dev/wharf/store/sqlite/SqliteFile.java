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
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The database file as a store opens and closes it: what a started store holds open on it (the
 * writer's connection and thread, the checkpointer, the readers, the WAL's handle and the claim
 * on the file), opened in the order each needs and closed in the order that keeps the file safe;
 * the name it is opened by, the settings of the writer's connection, the checks that make a
 * failed open say why, and the guard that keeps a WAL no fsync vouches for from being
 * checkpointed at close.
 */
final class SqliteFile {
  /** The store's: where its start and close logged before they had this class. */
  private static final Logger LOG = Logger.getLogger(SqliteStore.class.getName());

  private final Path file;
  private final int pageSize;
  /** Frames past which the WAL restarts; 0: {@link Checkpointer#RESTART_BYTES} worth. */
  private final long walRestartFrames;
  private final WalSync beforeSync;
  private final Counters counters;
  private final DiskRoom room;
  /** False only in tests that place each passive checkpoint ({@link SqliteStore#checkpointNow}). */
  boolean checkpointInBackground = true;
  Duration leaseWriteBackAge = MemoryLeases.DEFAULT_MAX_AGE;
  /** Tests only: the count at start waits for it. */
  CountDownLatch countGate;

  /** The database's JDBC url, once started. */
  private String url;
  MemoryLeases memoryLeases;
  GroupCommitWriter writer;
  /** Shared by the writer and the checkpointer: whether writes fail, and if for good. */
  WriteHealth health;
  private FileChannel wal;
  /** This process's claim on the file (see {@link OwnerLock}). */
  private OwnerLock owner;
  Checkpointer checkpointer;
  private Connection writeConn;
  ReadPool reads;
  IdLookup ids;
  private StartupCount startupCount;

  SqliteFile(
      Path file,
      int pageSize,
      long walRestartFrames,
      WalSync beforeSync,
      Counters counters,
      DiskRoom room) {
    this.file = file;
    this.pageSize = pageSize;
    this.walRestartFrames = walRestartFrames;
    this.beforeSync = beforeSync;
    this.counters = counters;
    this.room = room;
  }

  /** Opens the file and starts the writer, the checkpointer and the count of what is on it. */
  void open() {
    Path db = linkedTo(file);
    url = "jdbc:sqlite:" + db;
    owner = OwnerLock.acquire(db);
    try {
      writeConn = SqliteConnections.open(url);
      int pageSizeInUse = configure(writeConn, pageSize);
      SqliteSchema.migrate(writeConn);
      requireWritable(writeConn);
      ids = new IdLookup(SqliteSchema.legacyIdsUpTo(writeConn));
      // Pinned before the writer exists, so the count sees exactly what its deltas do not.
      startupCount = new StartupCount(url);
      Path walFile = Path.of(db + "-wal");
      wal = FileChannel.open(walFile, StandardOpenOption.WRITE);
      health = new WriteHealth();
      RoomReserve reserve = room.reserveFor(db, pageSizeInUse);
      checkpointer =
          new Checkpointer(
              url,
              db,
              walRestartFrames > 0 ? walRestartFrames : Checkpointer.restartFrames(pageSizeInUse),
              checkpointInBackground,
              health,
              () -> {
                room.keepRoom();
                room.readRoom();
              });
      memoryLeases = new MemoryLeases(leaseWriteBackAge);
      writer =
          new GroupCommitWriter(
              writeConn,
              counters,
              () -> {
                beforeSync.sync();
                wal.force(false);
              },
              checkpointer::restart,
              memoryLeases,
              SeqBlocks.firstSeq(writeConn),
              health,
              reserve,
              room::readRoom);
      reads = new ReadPool(url, 4);
      room.watch(db, reads);
      startupCount.startCounting(counters, countGate);
    } catch (SQLException | IOException e) {
      close();
      throw cannotOpen(file, e);
    }
  }

  void close() {
    boolean broken = health != null && health.broken() != null;
    Connection guard = broken ? walGuard(url) : null;
    if (startupCount != null) {
      startupCount.close();
    }
    if (writer != null) {
      // Leases held in memory outlive a clean stop: a restart honours them until they end. After
      // a failed fsync nothing is written: they end with the process, as in a crash.
      if (!broken) {
        try {
          writer.submit(tx -> {
            tx.leases.writeBackAll(tx);
            return null;
          });
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "leases held in memory were not written back at stop", e);
        }
      }
      writer.close();
    }
    if (checkpointer != null) {
      checkpointer.close();
    }
    if (wal != null) {
      try {
        wal.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    if (reads != null) {
      reads.close();
    }
    if (writeConn != null) {
      try {
        writeConn.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
    if (guard != null) {
      try {
        guard.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
    if (owner != null) {
      // Last: the file is free for another process only once nothing here touches it.
      owner.close();
      owner = null;
    }
  }

  /**
   * Sets up the writer's connection to a file in WAL mode, a new one with pages of
   * {@code pageSize}; returns the page size in use.
   */
  private static int configure(Connection writeConn, int pageSize) throws SQLException {
    try (Statement s = writeConn.createStatement()) {
      // Takes effect only on a new file, so before anything (WAL mode included) writes one.
      s.execute("PRAGMA page_size = " + pageSize);
      s.execute("PRAGMA journal_mode = WAL");
      // Commits do not fsync themselves; the writer fsyncs the WAL before answering a publish.
      s.execute("PRAGMA synchronous = NORMAL");
      // Checkpoints run on their own connection so they never stall the writer.
      s.execute("PRAGMA wal_autocheckpoint = 0");
      // Above the restart bound (Checkpointer.RESTART_BYTES) with room for the batches that
      // commit before a restart, so the file is not cut back and grown again every cycle.
      s.execute("PRAGMA journal_size_limit = 335544320");
      // Only the WAL restart waits, for readers to leave the WAL; it gives up and retries later.
      s.execute("PRAGMA busy_timeout = 200");
      // 16 MB: the writer's pages are the edges of a few B-trees (appends at the right, claims and
      // acks at the left), which this holds many times over; a 64 MB cache measured the same
      // throughput and kept ~50 MB more resident once a load had filled it.
      s.execute("PRAGMA cache_size = -16384");
      s.execute("PRAGMA temp_store = MEMORY");
      try (ResultSet rs = s.executeQuery("PRAGMA page_size")) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** Why a start failed, from the error that failed it. */
  private static StoreException cannotOpen(Path file, Exception e) {
    // Java's file errors say only the path: name what went wrong with it.
    String why =
        e instanceof java.nio.file.AccessDeniedException
            ? "permission denied: " + e.getMessage()
            : e instanceof java.nio.file.NoSuchFileException
                ? "no such file: " + e.getMessage()
                : e.getMessage();
    return new StoreException("cannot open " + file + ": " + why + lowOnRoom(file), e);
  }

  /** Below this many bytes free, a failed open says so: SQLite's error then rarely does. */
  static final long OPEN_ROOM_BYTES = 1 << 20;

  /**
   * What to add to a failed open's reason when the disk is (nearly) full: SQLite reports the
   * {@code -shm} file it cannot grow as an I/O error, which hides what the operator must do.
   */
  static String lowOnRoom(Path file) {
    Path dir = file.toAbsolutePath().getParent();
    try {
      return lowOnRoom(dir, java.nio.file.Files.getFileStore(dir).getUsableSpace());
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  static String lowOnRoom(Path dir, long usableBytes) {
    return usableBytes >= OPEN_ROOM_BYTES
        ? ""
        : "; the disk holding " + dir + " is full (" + usableBytes
            + " bytes free): free space there and start again";
  }

  /**
   * SQLite opens a file it may not write (or whose {@code -shm} it may not) read-only, and says so
   * only at the first write: after the start, to every publish. A write rolled back asks now.
   */
  private static void requireWritable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      try {
        s.execute("INSERT INTO seq_reserved(up_to) VALUES (0)");
      } finally {
        s.execute("ROLLBACK");
      }
    } catch (SQLException e) {
      throw new SQLException(
          "the database cannot be written (" + StoreException.firstLine(e.getMessage()) + ")", e);
    }
  }

  /**
   * The file a path names, through a symbolic link: SQLite opens the link's target and names its
   * WAL after it, and two names of one file must take one lock ({@link OwnerLock}).
   */
  private static Path linkedTo(Path file) {
    Path p = file.toAbsolutePath();
    try {
      // Link by link, so that one whose target does not exist yet names the file to make.
      for (int i = 0; i < 40 && java.nio.file.Files.isSymbolicLink(p); i++) {
        p = p.resolveSibling(java.nio.file.Files.readSymbolicLink(p)).normalize();
      }
      return java.nio.file.Files.exists(p) ? p.toRealPath() : p;
    } catch (IOException e) {
      return p;
    }
  }

  /**
   * After a failed fsync ({@link WriteHealth#broke}), a read-only connection in a read
   * transaction while the others close. SQLite's last connection to close checkpoints the WAL
   * into the database and deletes it: it would copy frames no fsync vouches for, and leave a
   * restart's recovery, which checks every frame and stops at the first bad one, nothing to
   * check. While this one reads, the others cannot take the lock that checkpoint needs, and a
   * read-only connection, closed last, never checkpoints.
   */
  private static Connection walGuard(String url) {
    Connection c = null;
    try {
      org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
      config.setReadOnly(true);
      c = org.sqlite.JDBC.createConnection(url, config.toProperties());
      c.setAutoCommit(false);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM queues")) {
        rs.next();
      }
      return c;
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "closing after a failed fsync: the WAL may be checkpointed", e);
      if (c != null) {
        try {
          c.close();
        } catch (SQLException ignored) {
          // closing anyway
        }
      }
      return null;
    }
  }
}
