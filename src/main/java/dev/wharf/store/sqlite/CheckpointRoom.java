package dev.wharf.store.sqlite;

import static dev.wharf.store.sqlite.DiskFreeLimit.mb;

import java.nio.file.Path;
import java.util.logging.Logger;

/**
 * The room on disk the next checkpoint needs, kept from publishes. The pages the WAL holds beyond
 * the database file's end are a debt: a checkpoint must grow the file by them before the WAL can
 * start over, and until it has, every write appends to the WAL. While the disk has room for them
 * nothing is owed; once a disk filled by publishes cannot take them, an operator's purge has to
 * pay that debt from the room kept for it ({@link RoomReserve}) before its own frames: with a WAL
 * of 19 MB on a full 40 MB tmpfs it came to 8.3 MB, all the room kept, and the purge stopped after
 * its first chunk. So publishes are refused while the disk has less room than the debt, as last
 * read: they would take the room the checkpoint needs and add to the debt besides. The room kept
 * is then left to the deletion's own frames and to what publishes took between two readings.
 *
 * <p>Read on the checkpointer's thread after every pass, whether it worked or not (on a full disk
 * they fail), and at the end of a deletion given the room kept, so a publish reads a field and
 * nothing more.
 */
final class CheckpointRoom {
  /** The store's: an operator follows its room on disk under one name. */
  private static final Logger LOG = Logger.getLogger(SqliteStore.class.getName());

  private final Path dir;
  /** What the checkpoint must grow the database file by, as last read. */
  private volatile long owed;
  /** Why publishes are refused now, or null. */
  private volatile String refusal;

  CheckpointRoom(Path dir) {
    this.dir = dir;
  }

  /**
   * Takes a reading: the database's size in pages as its newest commit has it ({@code pages} of
   * {@code pageBytes}), the length of its file, and the disk's free space.
   */
  synchronized void read(long pages, int pageBytes, long fileBytes, long diskFree) {
    long debt = Math.max(0, pages * pageBytes - fileBytes);
    owed = debt;
    String was = refusal;
    if (debt > diskFree) {
      refusal = "the disk holding " + dir + " has " + mb(diskFree) + " free, less than the "
          + mb(debt) + " the checkpoint needs to copy the WAL into the database file:"
          + " publishes are refused until it has copied them or the disk has more room";
      if (was == null) {
        LOG.warning(refusal + "; acks, purges and deletions go on");
      }
    } else {
      refusal = null;
      if (was != null) {
        LOG.info("the disk holding " + dir + " has room for the checkpoint again: publishes are"
            + " taken");
      }
    }
  }

  /** What the checkpoint must grow the database file by, as last read. */
  long owed() {
    return owed;
  }

  /** Why a publish is refused now, or null. */
  String refusal() {
    return refusal;
  }
}
