package dev.wharf.store.sqlite;

import dev.wharf.store.StorageFull;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The room kept on the disk for an operator's deletions ({@link RoomReserve}), as the writer
 * hands it out: which deletions are under way, whether the room was given up to them, and the
 * refusal of every other write while it is theirs.
 */
final class RoomForDeletions {
  // The writer's logger: an operator follows the writer's full disk under one name.
  private static final Logger LOG = Logger.getLogger(GroupCommitWriter.class.getName());

  /** Why writes but an operator's deletions are refused while {@link #keptForDeletions}. */
  static final String ROOM_KEPT_FOR_DELETIONS =
      "the disk is full; its last room goes to a purge or delete under way";

  /** Room given up for an operator's deletion on a full disk. */
  private final RoomReserve reserve;
  /** The writer's upkeep between batches: a deletion given the room restarts the WAL first. */
  private final BetweenBatches restartWal;
  /** Reads the disk's room again ({@link DiskRoom#readRoom}) before other writes go on. */
  private final Runnable readRoom;
  /** Operator's deletions under way ({@link #makingRoom}). */
  private final AtomicInteger deletions = new AtomicInteger();
  /** Whether the room kept was given up to the deletions under way, which alone may use it. */
  private volatile boolean roomGivenUp;

  RoomForDeletions(RoomReserve reserve, BetweenBatches restartWal, Runnable readRoom) {
    this.reserve = reserve;
    this.restartWal = restartWal;
    this.readRoom = readRoom;
  }

  /** Whether an operator's deletion is under way, in {@link #makingRoom}. */
  boolean deletionUnderWay() {
    return deletions.get() > 0;
  }

  /**
   * Runs an operator's deletion, whose writes go through {@link
   * GroupCommitWriter#submitFreeingRoom}. Once one of them has been given the room kept, every
   * other write is refused (as on a full disk) until no such deletion is under way: a purge runs a
   * transaction per chunk, and publishes retried in between would otherwise take the room its next
   * chunks need, and leave it cut short on a disk full again. Once it is done, what it deleted is
   * room inside the database for new messages.
   */
  <T> T makingRoom(Supplier<T> deletion) {
    deletions.incrementAndGet();
    try {
      return deletion.get();
    } finally {
      synchronized (deletions) {
        if (deletions.get() == 1 && roomGivenUp) {
          // What room is left was the reserve's: kept again before other writes may take it, so
          // the next full disk finds it too. Writes are refused until this is done.
          reserve.ensure(true);
          // A reading taken while the room was given up counted it as free: one that let
          // publishes in would hand them the room the checkpoint needs.
          readRoom.run();
          roomGivenUp = false;
        }
        deletions.decrementAndGet();
      }
    }
  }

  /** Whether writes but an operator's deletions are refused now: see {@link #makingRoom}. */
  boolean keptForDeletions() {
    return roomGivenUp && deletions.get() > 0;
  }

  /**
   * Gives the room kept to the deletion that just failed for lack of it, on the writer's
   * connection between transactions. Returns whether there was room to give: then the deletion
   * runs once more.
   *
   * <p>The WAL is restarted first: its checkpoint grows the database file by the pages the WAL
   * holds beyond its end, which {@link CheckpointRoom} keeps the disk's room for, and the
   * deletion's frames then go into the room the WAL file already has. In the other order they
   * took new room first: the WAL grew by 7 MB in a deletion of 5,000 messages of 2 KB.
   */
  boolean giveUp(Connection conn) {
    if (!reserve.release(conn)) {
      return false;
    }
    roomGivenUp = true;
    LOG.warning("the disk is full: deleted " + reserve.file() + " to let a purge or delete"
        + " make room; what it leaves of that room is kept again once it is done");
    try {
      restartWal.run(conn, true);
    } catch (SQLException e) {
      // The deletion runs all the same, in what room there is.
      LOG.log(Level.WARNING, "restarting the WAL before a deletion failed", e);
    }
    return true;
  }

  /** Refuses a write while the room is kept for deletions ({@link #keptForDeletions}). */
  static void refuse(PendingWrite<?> p) {
    p.done().completeExceptionally(
        new StorageFull("write failed: " + ROOM_KEPT_FOR_DELETIONS, null));
  }

  /** Refuses every write of the batch but the operator's deletions, and takes them out of it. */
  static void refuseAllButDeletions(List<PendingWrite<?>> batch) {
    for (Iterator<PendingWrite<?>> it = batch.iterator(); it.hasNext(); ) {
      PendingWrite<?> p = it.next();
      if (!p.freesRoom()) {
        refuse(p);
        it.remove();
      }
    }
  }
}
