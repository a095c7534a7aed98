package dev.wharf.store.sqlite;

import dev.wharf.store.QueueRecord;
import dev.wharf.store.jdbc.HeldRow;
import dev.wharf.store.jdbc.QueueRows;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * A store's queues: their records, read by the readers and written by the writer, and the
 * deletions of a queue, of its messages and of one message, which run as an operator's deletions
 * ({@link GroupCommitWriter#makingRoom}) so that they go on on a full disk; a queue's messages go
 * in chunks.
 */
final class SqliteQueues {
  private final ReadPool reads;
  private final GroupCommitWriter writer;
  private final Counters counters;
  private final IdLookup ids;

  SqliteQueues(ReadPool reads, GroupCommitWriter writer, Counters counters, IdLookup ids) {
    this.reads = reads;
    this.writer = writer;
    this.counters = counters;
    this.ids = ids;
  }

  List<QueueRecord> queuesList() {
    return reads.read(QueueRows::list);
  }

  Optional<QueueRecord> queuesGet(String name) {
    return reads.read(c -> QueueRows.get(c, name));
  }

  boolean queuesPutIf(QueueRecord q, String expectedSettings) {
    // The writer is the only one: what it reads here no other write can change before its own.
    return writer.submit(tx -> {
      PreparedStatement find = tx.prepare("SELECT settings FROM queues WHERE name = ?");
      find.setString(1, q.name());
      String stored;
      try (ResultSet rs = find.executeQuery()) {
        stored = rs.next() ? rs.getString(1) : null;
      }
      if (!java.util.Objects.equals(stored, expectedSettings)) {
        return false;
      }
      put(tx, q);
      return true;
    });
  }

  void queuesPut(QueueRecord q) {
    writer.submit(tx -> {
      put(tx, q);
      return null;
    });
  }

  private static void put(WriterTx tx, QueueRecord q) throws SQLException {
    tx.queueMade(q.name());
    PreparedStatement ps =
        tx.prepare("INSERT OR REPLACE INTO queues(name, settings, config_hash) VALUES (?, ?, ?)");
    ps.setString(1, q.name());
    ps.setString(2, q.settingsJson());
    ps.setString(3, q.configHash());
    ps.executeUpdate();
  }

  /** Ready messages a queue deletion removes per writer transaction. */
  static final int DELETE_CHUNK = 5000;

  boolean queuesDelete(String name) {
    // Forgetting the queue's counts must come after the count at start has added them.
    counters.awaitCounted();
    // Messages go in bounded chunks, each state through its own index, so deleting a queue of a
    // million never holds the one writer, and every other queue's publishes, for seconds.
    // The last transaction only sweeps what came meanwhile: 200,000 leased in it held the writer
    // for 0.7 s.
    return writer.makingRoom(() -> deleteQueue(name));
  }

  private boolean deleteQueue(String name) {
    SqliteQueueDeletion.inChunks(writer, name, Long.MAX_VALUE, DELETE_CHUNK);
    boolean existed = writer.submitFreeingRoom(tx -> {
      // From this transaction on the queue takes no writes: what was published into it until
      // now is swept here, what comes later is refused instead of left behind.
      tx.queueDeleted(name);
      SqliteQueueDeletion.deleteRest(tx, name);
      PreparedStatement idem = tx.prepare("DELETE FROM idempotency WHERE queue = ?");
      idem.setString(1, name);
      idem.executeUpdate();
      PreparedStatement q = tx.prepare("DELETE FROM queues WHERE name = ?");
      q.setString(1, name);
      return q.executeUpdate() == 1;
    });
    return existed;
  }

  long messagesPurge(String queue) {
    // As a queue's deletion: ready messages in bounded chunks through their index, the other
    // states through theirs. One transaction for a queue of a million held the one writer, and
    // every other queue's publishes, for seconds, and a statement by queue alone scanned the whole
    // table even for an empty queue. What is purged is what was published before the purge began:
    // publishes that keep coming cannot keep it going.
    return writer.makingRoom(() -> {
      long upTo = writer.submitFreeingRoom(tx -> tx.nextSeq() - 1);
      return SqliteQueueDeletion.inChunks(writer, queue, upTo, DELETE_CHUNK);
    });
  }

  boolean messagesDelete(String queue, String id) {
    return writer.makingRoom(() -> writer.submitFreeingRoom(tx -> deleteById(tx, queue, id)));
  }

  private boolean deleteById(WriterTx tx, String queue, String id) throws SQLException {
    long seq = ids.seq(tx, queue, id);
    if (seq < 0) {
      return false;
    }
    tx.leases.writeBackSeq(tx, seq);
    PreparedStatement find =
        tx.prepare("SELECT seq, state, original_queue FROM messages WHERE seq = ?");
    find.setLong(1, seq);
    try (ResultSet rs = find.executeQuery()) {
      if (!rs.next()) {
        return false;
      }
      SqliteSettle.delete(
          tx,
          new HeldRow(
              rs.getLong(1), queue, rs.getInt(2), null, 0, 0, rs.getString(3), false));
      return true;
    }
  }
}
