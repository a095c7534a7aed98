package dev.wharf.store.sqlite;

import dev.wharf.store.StoreException;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Why the store should not be sent traffic now, for readiness: the messages on disk were not
 * counted, the readers do not answer, the disk is under the limit, or writes fail. A failing
 * writer is probed with a write of its own, since with no traffic nothing else would tell.
 */
final class SqliteReadiness {
  private final Counters counters;
  private final ReadPool reads;
  private final DiskRoom room;
  private final GroupCommitWriter writer;
  /** Whether readiness is probing a failing writer with a write of its own. */
  private final AtomicBoolean probingWrites = new AtomicBoolean();

  SqliteReadiness(Counters counters, ReadPool reads, DiskRoom room, GroupCommitWriter writer) {
    this.counters = counters;
    this.reads = reads;
    this.room = room;
    this.writer = writer;
  }

  String unready() {
    String uncounted = counters.countFailure();
    if (uncounted != null) {
      // Nothing that needs the counts (stats, every write's bookkeeping) can be served.
      return "the messages on disk could not be counted at start: " + uncounted;
    }
    try {
      reads.read(c -> {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
          return rs.next();
        }
      });
    } catch (StoreException e) {
      return "storage is not answering";
    }
    String low = room.refusal();
    if (low != null) {
      return "storage takes no publishes: " + low;
    }
    if (writer.roomKeptForDeletions()) {
      // The deletion's own batches on disk end the write failure that began it; every other
      // write is refused all the same until it is done.
      return "storage writes are failing: " + RoomForDeletions.ROOM_KEPT_FOR_DELETIONS;
    }
    if (writer.writeFailure() != null) {
      probeWrite();
    }
    String failure = writer.writeFailure();
    return failure == null ? null : "storage writes are failing: " + failure;
  }

  /**
   * A write through the writer, fsync included, to learn whether writes work again: with no
   * traffic (a load balancer holds it back while the server is not ready) nothing else would tell.
   * It adds and drops a 16 KB row in one transaction, so it needs room as a publish does. One runs
   * at a time; readiness asked meanwhile answers from what is known.
   */
  private void probeWrite() {
    if (!probingWrites.compareAndSet(false, true)) {
      return;
    }
    try {
      writer.submit(tx -> {
        try (Statement s = tx.conn.createStatement()) {
          // No queue has the empty name, so no lookup of a real key can meet this row.
          s.executeUpdate("INSERT OR REPLACE INTO idempotency(queue, ikey, message_id, expires_at)"
              + " VALUES ('', 'readiness probe', zeroblob(16384), 0)");
          s.executeUpdate("DELETE FROM idempotency WHERE queue = '' AND ikey = 'readiness probe'");
        }
        return null;
      });
    } catch (StoreException e) {
      // The failure stands; the writer recorded it.
    } finally {
      probingWrites.set(false);
    }
  }
}
