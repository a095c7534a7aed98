package dev.wharf.store.sqlite;

import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.LeaseIds;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.MessageState;
import dev.wharf.store.SettleKind;
import dev.wharf.store.SettleRequest;
import dev.wharf.store.jdbc.HeldRow;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL of settling leases and of moving messages to their DLQ. Every change is guarded by the
 * row's current state and lease and its row count checked: 0 would mean a lost race, which the
 * single writer rules out, so it fails the batch loudly instead of answering wrongly.
 */
final class SqliteSettle {
  private static final int READY = MessageState.READY.code();
  private static final int LEASED = MessageState.LEASED.code();

  private SqliteSettle() {}

  static List<LeaseOutcome> settle(WriterTx tx, SettleRequest r) throws SQLException {
    List<LeaseOutcome> out = new ArrayList<>(r.leaseIds().size());
    long now = r.now().toEpochMilli();
    LeaseOutcome[] inMemory = settleHeldInMemory(tx, r, now);
    List<String> rest = r.leaseIds();
    if (inMemory != null) {
      rest = new ArrayList<>();
      for (int i = 0; i < inMemory.length; i++) {
        if (inMemory[i] == null) {
          rest.add(r.leaseIds().get(i));
        }
      }
    }
    // One read for every row the request names, and one delete for every ack: a 100-lease ack
    // is two statements, not two hundred. A row this request already changed is read again (two
    // lease ids may name one message: a stale lease and the current one).
    Map<Long, HeldRow> rows = heldAll(tx, rest);
    List<HeldRow> acked = new ArrayList<>();
    for (int i = 0; i < r.leaseIds().size(); i++) {
      if (inMemory != null && inMemory[i] != null) {
        out.add(inMemory[i]);
        continue;
      }
      String leaseId = r.leaseIds().get(i);
      long seq = LeaseIds.seqOf(leaseId);
      HeldRow h = rows.containsKey(seq) ? rows.get(seq) : held(tx, seq);
      Outcome refused = HeldRow.refusal(r, leaseId, h);
      if (refused != null) {
        out.add(LeaseOutcome.of(leaseId, refused));
        continue;
      }
      if (r.kind() == SettleKind.ACK) {
        acked.add(h);
        rows.put(seq, null);
        out.add(LeaseOutcome.of(leaseId, Outcome.ACKED));
      } else {
        rows.remove(seq);
        out.add(apply(tx, r, h, leaseId, now));
      }
    }
    deleteAll(tx, acked);
    return out;
  }

  /**
   * Settles the leases held in memory ({@link MemoryLeases}) that this request names under their
   * current lease, without writing the lease first: an ack deletes the row unread, an extend
   * changes only the lease held here, and a release or defer (which take the attempt back, so the
   * row's own attempt is already right) moves the still-ready row's visible time. Every other row
   * the request names whose lease is held in memory (a nack, which counts the attempt against
   * the queue's limit, a dead, or a lease id that is not the current one) is written back first,
   * so that what follows reads it as it would have had the lease been written at claim. Returns
   * each lease id's outcome where it was settled here, or null when none was.
   */
  private static LeaseOutcome[] settleHeldInMemory(WriterTx tx, SettleRequest r, long now)
      throws SQLException {
    MemoryLeases memory = tx.leases;
    if (memory.size() == 0) {
      return null;
    }
    LeaseOutcome[] out = null;
    List<MemoryLeases.Lease> acked = null;
    List<String> ids = r.leaseIds();
    for (int i = 0; i < ids.size(); i++) {
      String leaseId = ids.get(i);
      long seq = LeaseIds.seqOf(leaseId);
      MemoryLeases.Lease held = seq < 0 ? null : memory.get(seq);
      if (held == null) {
        continue;
      }
      boolean current =
          held.leaseId().equals(leaseId) && held.queue().equals(r.queue()) && held.until() > now;
      LeaseOutcome settled = null;
      if (current) {
        settled = switch (r.kind()) {
          case ACK -> {
            if (acked == null) {
              acked = new ArrayList<>();
            }
            memory.release(held);
            acked.add(held);
            yield LeaseOutcome.of(leaseId, Outcome.ACKED);
          }
          case EXTEND -> {
            long until = Math.max(held.until(), r.leaseUntil().toEpochMilli());
            memory.extend(held, until);
            yield new LeaseOutcome(leaseId, Outcome.EXTENDED, Instant.ofEpochMilli(until));
          }
          case RELEASE -> {
            readyFromMemory(tx, held, now);
            yield LeaseOutcome.of(leaseId, Outcome.RELEASED);
          }
          case DEFER -> {
            readyFromMemory(tx, held, r.visibleAt().toEpochMilli());
            yield LeaseOutcome.of(leaseId, Outcome.DEFERRED);
          }
          case RETRY, DEAD -> null;
        };
      }
      if (settled == null) {
        memory.writeBackSeq(tx, seq);
      } else {
        if (out == null) {
          out = new LeaseOutcome[ids.size()];
        }
        out[i] = settled;
      }
    }
    if (acked != null) {
      PreparedStatement ps =
          tx.prepare(
              "DELETE FROM messages WHERE state = 0 AND seq IN ("
                  + placeholders(acked.size()) + ")");
      for (int i = 0; i < acked.size(); i++) {
        ps.setLong(i + 1, acked.get(i).seq());
      }
      int deleted = ps.executeUpdate();
      if (deleted != acked.size()) {
        throw new SQLException(
            "delete of " + acked.size() + " messages leased in memory removed " + deleted);
      }
      for (MemoryLeases.Lease l : acked) {
        tx.delta.add(l.queue(), LEASED, l.originalQueue(), -1);
      }
    }
    return out;
  }

  /**
   * Ends a lease held in memory with its message ready again at {@code visibleAt}, the attempt
   * not counted: the row never left ready and still holds the attempt from before the claim, so
   * only its visible time changes. The lease goes first, so that a row now at or before the
   * queue's cursor has the queue's other leases written back ({@link MemoryLeases#madeReady}),
   * not this one.
   */
  private static void readyFromMemory(WriterTx tx, MemoryLeases.Lease held, long visibleAt)
      throws SQLException {
    tx.leases.release(held);
    PreparedStatement ps =
        tx.prepare("UPDATE messages SET visible_at = ? WHERE seq = ? AND state = 0");
    ps.setLong(1, visibleAt);
    ps.setLong(2, held.seq());
    if (ps.executeUpdate() != 1) {
      throw new SQLException("message " + held.seq() + " leased in memory has no ready row");
    }
    tx.delta.move(held.queue(), LEASED, held.originalQueue(), held.queue(), READY,
        held.originalQueue());
    tx.leases.madeReady(tx, held.queue(), visibleAt, held.seq());
  }

  /** The rows the lease ids name, by seq (absent: no such row). */
  private static Map<Long, HeldRow> heldAll(WriterTx tx, List<String> leaseIds)
      throws SQLException {
    List<Long> seqs = LeaseIds.seqsOf(leaseIds);
    Map<Long, HeldRow> rows = new HashMap<>();
    if (seqs.isEmpty()) {
      return rows;
    }
    PreparedStatement ps =
        tx.prepare(
            "SELECT " + HeldRow.COLUMNS + " FROM messages WHERE seq IN ("
                + placeholders(seqs.size()) + ")");
    for (int i = 0; i < seqs.size(); i++) {
      ps.setLong(i + 1, seqs.get(i));
    }
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        HeldRow h = HeldRow.read(rs);
        rows.put(h.seq(), h);
      }
    }
    for (long seq : seqs) {
      rows.putIfAbsent(seq, null);
    }
    return rows;
  }

  /** Deletes acked rows in one statement; every one must go. */
  private static void deleteAll(WriterTx tx, List<HeldRow> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    PreparedStatement ps =
        tx.prepare("DELETE FROM messages WHERE seq IN (" + placeholders(rows.size()) + ")");
    for (int i = 0; i < rows.size(); i++) {
      ps.setLong(i + 1, rows.get(i).seq());
    }
    int deleted = ps.executeUpdate();
    if (deleted != rows.size()) {
      throw new SQLException("guarded delete of " + rows.size() + " acked messages removed " + deleted);
    }
    for (HeldRow h : rows) {
      tx.delta.add(h.queue(), h.state(), h.originalQueue(), -1);
    }
  }

  /** "?, ?, ?" for an IN list of {@code n}. */
  static String placeholders(int n) {
    StringBuilder sb = new StringBuilder(n * 3);
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "?" : ", ?");
    }
    return sb.toString();
  }

  private static LeaseOutcome apply(
      WriterTx tx, SettleRequest r, HeldRow h, String leaseId, long now) throws SQLException {
    return switch (r.kind()) {
      case ACK -> {
        delete(tx, h);
        yield LeaseOutcome.of(leaseId, Outcome.ACKED);
      }
      case RETRY -> {
        if (r.policy().attemptsUsedUp(h.attempt())) {
          yield LeaseOutcome.of(leaseId, toDead(tx, h, r.policy(), r.deadReason(), now));
        }
        yield toReadyOrGone(tx, h, r.visibleAt().toEpochMilli(), 0, leaseId, Outcome.RETRIED);
      }
      case DEFER ->
          toReadyOrGone(tx, h, r.visibleAt().toEpochMilli(), -1, leaseId, Outcome.DEFERRED);
      case RELEASE -> toReadyOrGone(tx, h, now, -1, leaseId, Outcome.RELEASED);
      case DEAD -> LeaseOutcome.of(leaseId, toDead(tx, h, r.policy(), r.deadReason(), now));
      case EXTEND -> {
        long until = Math.max(h.leaseUntil(), r.leaseUntil().toEpochMilli());
        PreparedStatement ps =
            tx.prepare("UPDATE messages SET lease_until = ? WHERE seq = ? AND state = 1");
        ps.setLong(1, until);
        ps.setLong(2, h.seq());
        checkOne(ps.executeUpdate(), h);
        yield new LeaseOutcome(leaseId, Outcome.EXTENDED, Instant.ofEpochMilli(until));
      }
    };
  }

  /**
   * A lease ends without an ack and its message would be ready again: so it is, unless a newer
   * publish with its key superseded it while it was leased. Then it is deleted, and the consumer
   * is answered {@code outcome} all the same. A lease held in memory is never superseded: the
   * keyed publish wrote back the leases of its queue before it marked any ({@code
   * SqlitePublish.replaceByKey}).
   */
  private static LeaseOutcome toReadyOrGone(
      WriterTx tx, HeldRow h, long visibleAt, int attemptChange, String leaseId, Outcome outcome)
      throws SQLException {
    if (h.superseded()) {
      delete(tx, h);
      return LeaseOutcome.ofSuperseded(leaseId, outcome);
    }
    toReady(tx, h, visibleAt, attemptChange);
    return LeaseOutcome.of(leaseId, outcome);
  }

  static HeldRow held(WriterTx tx, long seq) throws SQLException {
    if (seq < 0) {
      return null;
    }
    PreparedStatement ps =
        tx.prepare(
            "SELECT queue, state, lease_id, lease_until, attempt, original_queue, superseded"
                + " FROM messages WHERE seq = ?");
    ps.setLong(1, seq);
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      return new HeldRow(
          seq, rs.getString(1), rs.getInt(2), rs.getString(3), rs.getLong(4), rs.getInt(5),
          rs.getString(6), rs.getBoolean(7));
    }
  }

  static void delete(WriterTx tx, HeldRow h) throws SQLException {
    PreparedStatement ps = tx.prepare("DELETE FROM messages WHERE seq = ?");
    ps.setLong(1, h.seq());
    checkOne(ps.executeUpdate(), h);
    tx.delta.add(h.queue(), h.state(), h.originalQueue(), -1);
  }

  /**
   * Back to ready in the same queue.
   *
   * @param attemptChange 0 keeps the attempt counted, -1 takes it back (defer, release)
   */
  static void toReady(WriterTx tx, HeldRow h, long visibleAt, int attemptChange)
      throws SQLException {
    PreparedStatement ps =
        tx.prepare(
            "UPDATE messages SET state = 0, visible_at = ?, lease_id = NULL, lease_until = NULL,"
                + " attempt = max(attempt + ?, 0) WHERE seq = ? AND state = 1");
    ps.setLong(1, visibleAt);
    ps.setInt(2, attemptChange);
    ps.setLong(3, h.seq());
    checkOne(ps.executeUpdate(), h);
    tx.delta.move(h.queue(), LEASED, h.originalQueue(), h.queue(), READY, h.originalQueue());
    tx.leases.madeReady(tx, h.queue(), visibleAt, h.seq());
  }

  /**
   * Moves a message to its DLQ, ready with attempt 0, or drops it when there is no DLQ. A
   * superseded one dies as any other and loses its mark with its key, so that a lease a consumer
   * of the DLQ takes on it ends as any other lease.
   */
  static Outcome toDead(WriterTx tx, HeldRow h, DeadLetterPolicy policy, String reason, long now)
      throws SQLException {
    if (policy.deadLetterQueue() == null) {
      delete(tx, h);
      return Outcome.DROPPED;
    }
    tx.requireQueue(policy.deadLetterQueue());
    PreparedStatement ps =
        tx.prepare(
            "UPDATE messages SET queue = ?, state = 0, visible_at = ?, attempt = 0,"
                + " lease_id = NULL, lease_until = NULL, expires_at = NULL, msg_key = NULL,"
                + " superseded = 0, original_queue = ?, dead_reason = ?, died_at = ?"
                + " WHERE seq = ? AND state = ?");
    ps.setString(1, policy.deadLetterQueue());
    ps.setLong(2, now);
    ps.setString(3, h.queue());
    ps.setString(4, reason);
    ps.setLong(5, now);
    ps.setLong(6, h.seq());
    ps.setInt(7, h.state());
    checkOne(ps.executeUpdate(), h);
    tx.delta.move(h.queue(), h.state(), h.originalQueue(), policy.deadLetterQueue(), READY,
        h.queue());
    tx.leases.madeReady(tx, policy.deadLetterQueue(), now, h.seq());
    return Outcome.DEAD;
  }

  static void checkOne(int rows, HeldRow h) throws SQLException {
    if (rows != 1) {
      throw new SQLException("guarded update of message " + h.seq() + " changed " + rows + " rows");
    }
  }
}
