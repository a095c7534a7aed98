package dev.wharf.store.sqlite;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Leases the writer has granted and not yet written to the database: a write-back cache of the
 * lease columns. Most leases end in an ack within milliseconds; one held here costs the ack a
 * DELETE and nothing else, where one written at claim cost an UPDATE of the whole row (payload
 * included) and a read before the DELETE. In a receive-and-ack run of 100-message batches the
 * two were a third of the writer's time.
 *
 * <p>DESIGN §4 allows it: a lease not yet written is, after a crash, simply ready again, and a
 * message is never handed out before its publish is durable (the writer still checks that).
 * A lease is written back (the very UPDATE a claim used to run) once it is {@link #maxAgeNanos}
 * old, when it is due to expire, and before anything other than a claim or a settle under its
 * own lease id that leaves the attempt uncounted (ack, extend, release, defer) reads or changes
 * its row. From then on the row is the truth again, so every other path of the store
 * works on rows exactly as before.
 *
 * <p>In the database a lease held here is still {@code state = 0}, so claims must not pick it
 * again. Claims take a queue's ready rows in delivery order ({@code visible_at, seq}), so each
 * queue keeps a <em>cursor</em>: the last row a claim took while leases of the queue were held
 * here. Invariant: every ready row of the queue at or before its cursor is held here (or past
 * its TTL, which no claim takes). Claims read only rows after the cursor. A row made ready at or
 * before it (a publish with an earlier visible time, a nack, a lease expiry, a DLQ move, a
 * redrive) breaks the invariant: the queue's leases are written back first and its cursor
 * dropped ({@link #madeReady}).
 *
 * <p>The writer's thread alone changes it; changes made in a transaction that rolls back are
 * undone ({@link #rollback}). Readers may ask {@link #cursor} and {@link #heldIn} from any thread.
 */
final class MemoryLeases {
  /** By default, leases older than this are written back: the window in which a crash forgets a lease. */
  static final Duration DEFAULT_MAX_AGE = Duration.ofMillis(500);

  /**
   * Leases written back by age in one transaction at most: a consumer that takes a hundred
   * thousand messages and acks none must not hold the writer for seconds in one go. The rest
   * follow in the next transactions, which come at once.
   */
  static final int AGED_PER_TRANSACTION = 2048;

  /** Rows one write-back statement updates at most; its sizes are powers of two up to this. */
  private static final int WRITE_BACK_ROWS = 128;

  /** A lease held here: what writing it back, acking it and expiring it need. */
  record Lease(
      long seq,
      String queue,
      String originalQueue,
      String leaseId,
      long until,
      long expiresAt,
      long grantedNanos) {}

  /** Where a queue's claims go on reading: the last row taken while its leases are held here. */
  record Cursor(long visibleAt, long seq) {
    boolean atOrAfter(long visibleAt, long seq) {
      return this.visibleAt > visibleAt || (this.visibleAt == visibleAt && this.seq >= seq);
    }
  }

  /** In the order granted, so the oldest come first when written back by age. */
  private final LinkedHashMap<Long, Lease> bySeq = new LinkedHashMap<>();
  private final Map<String, Cursor> cursors = new ConcurrentHashMap<>();
  private final Map<String, Integer> heldPerQueue = new ConcurrentHashMap<>();
  /** How to undo this transaction's changes, newest last. */
  private final List<Runnable> undo = new ArrayList<>();
  private final long maxAgeNanos;
  private volatile long writtenBack;
  private boolean wroteBackInTx;

  MemoryLeases(Duration maxAge) {
    this.maxAgeNanos = maxAge.toNanos();
  }

  /** How long a lease is held here at most before it is written back. */
  long maxAgeNanos() {
    return maxAgeNanos;
  }

  // ---- the writer's transaction ----

  /** The transaction committed: its changes stand. */
  void commit() {
    undo.clear();
    wroteBackInTx = false;
  }

  /** The transaction rolled back: so do its changes here. */
  void rollback() {
    for (int i = undo.size() - 1; i >= 0; i--) {
      undo.get(i).run();
    }
    undo.clear();
    wroteBackInTx = false;
  }

  /** Whether this transaction wrote leases back (then its commit wants an fsync). */
  boolean wroteBackInTx() {
    return wroteBackInTx;
  }

  // ---- claims and acks ----

  Lease get(long seq) {
    return bySeq.get(seq);
  }

  /** Holds a lease a claim just granted; the claim's last row is passed as {@link #advance}. */
  void hold(Lease l) {
    bySeq.put(l.seq(), l);
    heldPerQueue.merge(l.queue(), 1, Integer::sum);
    undo.add(() -> {
      bySeq.remove(l.seq());
      heldPerQueue.merge(l.queue(), -1, MemoryLeases::sumOrNull);
    });
  }

  /** Moves a queue's cursor past the last row a claim took. */
  void advance(String queue, long visibleAt, long seq) {
    Cursor before = cursors.put(queue, new Cursor(visibleAt, seq));
    undo.add(() -> restoreCursor(queue, before));
  }

  /** Forgets a lease its ack is deleting the row of. */
  void release(Lease l) {
    bySeq.remove(l.seq());
    heldPerQueue.merge(l.queue(), -1, MemoryLeases::sumOrNull);
    undo.add(() -> {
      bySeq.put(l.seq(), l);
      heldPerQueue.merge(l.queue(), 1, Integer::sum);
    });
  }

  /**
   * Moves a held lease's end. It keeps its place in grant order: its age, and so when it is
   * written back, still counts from the claim.
   */
  void extend(Lease l, long until) {
    bySeq.put(l.seq(), new Lease(l.seq(), l.queue(), l.originalQueue(), l.leaseId(), until,
        l.expiresAt(), l.grantedNanos()));
    undo.add(() -> bySeq.put(l.seq(), l));
  }

  /** The cursor claims of {@code queue} read after, or null to read from its first ready row. */
  Cursor cursor(String queue) {
    return cursors.get(queue);
  }

  /** Leases of {@code queue} held here now (any thread; a moment's view). */
  int heldIn(String queue) {
    return heldPerQueue.getOrDefault(queue, 0);
  }

  int size() {
    return bySeq.size();
  }

  /** Leases written back since start (for metrics). */
  long writtenBack() {
    return writtenBack;
  }

  // ---- write-backs ----

  /**
   * A row of {@code queue} became ready with this visible time and seq. If that puts it at or
   * before the queue's cursor, the queue's leases are written back and the cursor dropped.
   */
  void madeReady(WriterTx tx, String queue, long visibleAt, long seq) throws SQLException {
    Cursor c = cursors.get(queue);
    if (c != null && c.atOrAfter(visibleAt, seq)) {
      writeBackQueue(tx, queue);
    }
  }

  /** Writes back every lease of {@code queue} and drops its cursor. */
  void writeBackQueue(WriterTx tx, String queue) throws SQLException {
    writeBack(tx, l -> l.queue().equals(queue));
    Cursor before = cursors.remove(queue);
    if (before != null) {
      undo.add(() -> restoreCursor(queue, before));
    }
  }

  /** Writes back the lease of one row, if one is held here. */
  void writeBackSeq(WriterTx tx, long seq) throws SQLException {
    Lease l = bySeq.get(seq);
    if (l != null) {
      write(tx, List.of(l));
    }
  }

  /** Writes back every lease (a clean shutdown, so a restart honours them). */
  void writeBackAll(WriterTx tx) throws SQLException {
    writeBack(tx, l -> true);
  }

  /** Writes back the leases that end at or before {@code now}, for the lease reaper. */
  void writeBackDue(WriterTx tx, long now) throws SQLException {
    writeBack(tx, l -> l.until() <= now);
  }

  /** Writes back the leases of messages whose TTL ends at or before {@code now}. */
  void writeBackTtlDue(WriterTx tx, long now) throws SQLException {
    writeBack(tx, l -> l.expiresAt() <= now);
  }

  /**
   * Writes back the leases granted before {@code grantedBeforeNanos}, oldest first, up to {@link
   * #AGED_PER_TRANSACTION}.
   */
  void writeBackOlderThan(WriterTx tx, long grantedBeforeNanos) throws SQLException {
    Long oldest = oldestGrantedNanos();
    if (oldest == null || oldest - grantedBeforeNanos > 0) {
      return;
    }
    List<Lease> old = new ArrayList<>();
    for (Lease l : bySeq.values()) {
      if (l.grantedNanos() - grantedBeforeNanos > 0 || old.size() == AGED_PER_TRANSACTION) {
        break;
      }
      old.add(l);
    }
    write(tx, old);
  }

  /** The grant time of the oldest lease held, or null when none is. */
  Long oldestGrantedNanos() {
    Iterator<Lease> it = bySeq.values().iterator();
    return it.hasNext() ? it.next().grantedNanos() : null;
  }

  private void writeBack(WriterTx tx, Predicate<Lease> which) throws SQLException {
    if (bySeq.isEmpty()) {
      return;
    }
    List<Lease> chosen = new ArrayList<>();
    for (Lease l : bySeq.values()) {
      if (which.test(l)) {
        chosen.add(l);
      }
    }
    write(tx, chosen);
  }

  /**
   * Writes the leases to their rows as a claim used to, then forgets them. The rows' counters
   * already count them leased.
   */
  private void write(WriterTx tx, List<Lease> leases) throws SQLException {
    int i = 0;
    while (i < leases.size()) {
      int rows = Integer.highestOneBit(Math.min(leases.size() - i, WRITE_BACK_ROWS));
      List<Lease> chunk = leases.subList(i, i + rows);
      PreparedStatement ps = tx.prepare(writeSql(rows));
      int p = 1;
      for (Lease l : chunk) {
        ps.setLong(p++, l.seq());
        ps.setLong(p++, l.until());
      }
      for (Lease l : chunk) {
        ps.setLong(p++, l.seq());
        ps.setString(p++, l.leaseId());
      }
      for (Lease l : chunk) {
        ps.setLong(p++, l.seq());
      }
      if (ps.executeUpdate() != rows) {
        throw new SQLException("a lease write-back found fewer ready rows than leases");
      }
      for (Lease l : chunk) {
        release(l);
      }
      writtenBack += rows;
      wroteBackInTx = true;
      i += rows;
    }
  }

  /** One statement writes {@code rows} leases, each its own lease id and end through CASE. */
  static String writeSql(int rows) {
    StringBuilder sql =
        new StringBuilder("UPDATE messages SET state = 1, attempt = attempt + 1, lease_until = CASE seq");
    for (int i = 0; i < rows; i++) {
      sql.append(" WHEN ? THEN ?");
    }
    sql.append(" END, lease_id = CASE seq");
    for (int i = 0; i < rows; i++) {
      sql.append(" WHEN ? THEN ?");
    }
    sql.append(" END WHERE state = 0 AND seq IN (")
        .append(SqliteSettle.placeholders(rows))
        .append(")");
    return sql.toString();
  }

  private void restoreCursor(String queue, Cursor before) {
    if (before == null) {
      cursors.remove(queue);
    } else {
      cursors.put(queue, before);
    }
  }

  private static Integer sumOrNull(int a, int b) {
    int s = a + b;
    return s == 0 ? null : s;
  }
}
