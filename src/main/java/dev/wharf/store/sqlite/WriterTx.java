package dev.wharf.store.sqlite;

import dev.wharf.store.QueueGone;
import dev.wharf.store.jdbc.StatementCache;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;

/**
 * What an operation of the writer's batch ({@link GroupCommitWriter}) sees: the connection,
 * cached statements, the batch's counter delta, and the seqs it hands out to new messages or
 * changes by key.
 */
final class WriterTx {
  final Connection conn;
  /** Leases granted and not yet written to their rows. */
  final MemoryLeases leases;
  private final StatementCache statements;
  Counters.Delta delta = new Counters.Delta();
  private long nextSeq;
  private final Set<Long> upserted = new HashSet<>();
  /**
   * The queues whose rows are committed: what a write may go into. Holding the live names, not
   * those deleted, keeps it as large as the queues there are, however many come and go.
   */
  private final Set<String> live;
  /** Queues this batch deletes: gone once it commits. */
  private final Set<String> goingInTx = new HashSet<>();
  /** Queues this batch makes (again): no longer gone once it commits, and not if it fails. */
  private final Set<String> madeInTx = new HashSet<>();

  WriterTx(Connection conn, MemoryLeases leases, long nextSeq) throws SQLException {
    this.conn = conn;
    this.live = storedQueues(conn);
    this.leases = leases;
    this.statements = new StatementCache(conn);
    this.nextSeq = nextSeq;
  }

  /** Queue names the writer holds (for tests: they must not pile up as queues come and go). */
  int queueNamesHeld() {
    return live.size() + goingInTx.size() + madeInTx.size();
  }

  /** The seq of a new message: publish order, and the row's key. */
  long nextSeq() {
    return nextSeq++;
  }

  /** The highest seq handed out so far. */
  long highestSeq() {
    return nextSeq - 1;
  }

  /**
   * Refuses a write into a queue with no row: a publish that passed the broker's check just
   * before a deletion's last transaction would otherwise put rows into a queue that no longer
   * exists, which a queue made later under that name would take in, uncounted; and messages
   * moved into a dead-letter queue deleted before this store started would be out of every
   * count and browse.
   */
  void requireQueue(String queue) {
    if (goingInTx.contains(queue) || (!live.contains(queue) && !madeInTx.contains(queue))) {
      throw new QueueGone(queue);
    }
  }

  private static Set<String> storedQueues(Connection conn) throws SQLException {
    Set<String> names = new HashSet<>();
    try (var st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT name FROM queues")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  /** The queue's deletion is in this transaction: later writes into it are refused. */
  void queueDeleted(String queue) {
    goingInTx.add(queue);
    madeInTx.remove(queue);
  }

  /** The queue is made (again): writes into it are taken. */
  void queueMade(String queue) {
    madeInTx.add(queue);
    goingInTx.remove(queue);
  }

  /** A ready message whose payload this batch replaced by key. */
  void upserted(long seq) {
    upserted.add(seq);
  }

  /** Readies it for a new batch: nothing counted, upserted, deleted or made yet. */
  void beginBatch() {
    delta = new Counters.Delta();
    upserted.clear();
    goingInTx.clear();
    madeInTx.clear();
  }

  /** The batch committed: the queues it made or deleted are so for later batches too. */
  void committed() {
    live.addAll(madeInTx);
    live.removeAll(goingInTx);
  }

  /** Queues this batch deleted and did not make again. */
  Set<String> deletedInTx() {
    return goingInTx;
  }

  /** Seqs of ready messages this batch replaced by key. */
  Set<Long> upsertedInTx() {
    return upserted;
  }

  PreparedStatement prepare(String sql) throws SQLException {
    return statements.prepare(sql);
  }

  void closeStatements() {
    statements.closeAll();
  }
}
