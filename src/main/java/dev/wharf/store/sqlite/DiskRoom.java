package dev.wharf.store.sqlite;

import dev.wharf.store.LowOnDisk;
import dev.wharf.store.StoreException;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * The store's watch on its room on disk: the room kept for an operator's deletions
 * ({@link RoomReserve}), the limit under which publishes are refused ({@link DiskFreeLimit}), the
 * database's free pages, which count as room, and the room the next checkpoint needs, kept from
 * publishes ({@link CheckpointRoom}). Set up before the start, made at the start, and read by
 * every publish.
 */
final class DiskRoom {
  /** The store's: where its line about the room kept was logged before it had this class. */
  private static final Logger LOG = Logger.getLogger(SqliteStore.class.getName());

  /** Room kept for an operator's deletions on a full disk ({@link RoomReserve}). */
  private RoomReserve reserve;
  private long diskFreeLimit = DiskFreeLimit.DEFAULT_BYTES;
  /** Set by tests before the start; else the disk holding the database, and the real time. */
  private LongSupplier diskUsable;
  private LongSupplier diskNanos;
  private DiskFreeLimit diskFree;
  /** The database's free pages in bytes, as last read ({@link #readRoom}). */
  private volatile long freePageBytes;
  /** The room the next checkpoint needs; set at the start. */
  private volatile CheckpointRoom checkpointRoom;
  private Path database;
  /** The disk holding the database, unless tests read its free space ({@link #diskUsable}). */
  private FileStore disk;
  private int pageBytes;
  /** Volatile: the checkpointer's thread reads it too (see {@link #readRoom}). */
  private volatile ReadPool reads;

  /** The database's free pages in bytes, as last read (for tests). */
  long freePageBytes() {
    return freePageBytes;
  }

  /** Tests only: the room kept for an operator's deletions on a full disk. */
  void keepRoomWith(RoomReserve reserve) {
    this.reserve = reserve;
  }

  /** Before the start: publishes are refused below this many bytes free (0: never). */
  void diskFreeLimit(long bytes) {
    diskFreeLimit = bytes;
  }

  /** Before the start, tests only: where the disk's free space and the time are read. */
  void diskFreeFrom(LongSupplier usable, LongSupplier nanos) {
    diskUsable = usable;
    diskNanos = nanos;
  }

  /**
   * At the start, before the checkpointer and the writer: the room kept for deletions beside
   * {@code db}, made now if it is missing and there is room; {@code pageBytes} is the page size.
   */
  RoomReserve reserveFor(Path db, int pageBytes) {
    this.pageBytes = pageBytes;
    if (reserve == null) {
      reserve = new RoomReserve(db, RoomReserve.DEFAULT_BYTES);
    }
    keepRoom();
    return reserve;
  }

  /** Makes the room kept for deletions on a full disk, when it is missing and there is room. */
  void keepRoom() {
    if (!reserve.held() && reserve.ensure(false)) {
      // Not a line at every start: what a start prints is its start line (ServeProcessTest).
      LOG.fine("keeping " + reserve.file() + " to let a purge or delete run on a full disk");
    }
  }

  /** At the start, once the readers are open: reads the room now, and from now on. */
  void watch(Path db, ReadPool pool) throws IOException {
    database = db;
    disk = diskUsable == null ? Files.getFileStore(db.toAbsolutePath().getParent()) : null;
    checkpointRoom = new CheckpointRoom(db.toAbsolutePath().getParent());
    reads = pool;
    // Pages a purge or an ack freed are room too: the database reuses them before it grows.
    readRoom();
    diskFree = diskUsable == null
        ? DiskFreeLimit.of(db, diskFreeLimit, () -> freePageBytes)
        : new DiskFreeLimit(db.toAbsolutePath().getParent(), diskFreeLimit, diskUsable,
            diskNanos);
    diskFree.check();
  }

  /**
   * Reads how many bytes of the database's pages are free for reuse, for {@link DiskFreeLimit},
   * and what the next checkpoint needs of the disk, for {@link CheckpointRoom}; on the
   * checkpointer's thread after each pass and on a deleting caller's at the end of a deletion
   * given the room kept ({@link RoomForDeletions#makingRoom}), not on a publish's (and by tests).
   */
  void readRoom() {
    ReadPool pool = reads;
    CheckpointRoom owed = checkpointRoom;
    if (pool == null || owed == null) {
      // A pass that came before the start made the pool: the start reads them itself.
      return;
    }
    try {
      long[] pages = pool.read(c -> {
        try (Statement s = c.createStatement()) {
          return new long[] {single(s, "PRAGMA freelist_count"), single(s, "PRAGMA page_count")};
        }
      });
      freePageBytes = pages[0] * pageBytes;
      // The file's length after the pages: what a checkpoint in between grew it by is paid.
      owed.read(pages[1], pageBytes, Files.size(database), diskFree());
    } catch (StoreException | IOException e) {
      // The last reading stands.
    }
  }

  private static long single(Statement s, String pragma) throws SQLException {
    try (ResultSet rs = s.executeQuery(pragma)) {
      return rs.next() ? rs.getLong(1) : 0L;
    }
  }

  /** The disk's free space, without the database's free pages: a checkpoint cannot use them. */
  private long diskFree() throws IOException {
    return disk == null ? diskUsable.getAsLong() : disk.getUsableSpace();
  }

  /** What the next checkpoint must grow the database file by, as last read (0 before it is). */
  long checkpointOwes() {
    CheckpointRoom owed = checkpointRoom;
    return owed == null ? 0 : owed.owed();
  }

  /**
   * Why a publish is refused now, or null when the disk has room: room under the limit ({@link
   * DiskFreeLimit}) or under what the next checkpoint needs ({@link CheckpointRoom}).
   */
  String refusal() {
    String low = diskFree.refusal();
    return low != null ? low : checkpointRoom.refusal();
  }

  /** Refuses a publish while the disk has too little room ({@link #refusal}). */
  void refuseWhenLowOnDisk() {
    String low = refusal();
    if (low != null) {
      throw new LowOnDisk(low);
    }
  }

  <T> CompletableFuture<T> lowOnDisk() {
    String low = refusal();
    return low == null ? null
        : CompletableFuture.failedFuture(new LowOnDisk(low));
  }
}
