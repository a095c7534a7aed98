package dev.wharf.store.sqlite;

import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.MessageState;
import dev.wharf.store.ReapResult;
import dev.wharf.store.RedriveRequest;
import dev.wharf.store.Redriven;
import dev.wharf.store.jdbc.HeldRow;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The SQL of the time-driven transitions and of redrive. */
final class SqliteReap {
  private static final int EXPIRED = MessageState.EXPIRED.code();

  private SqliteReap() {}

  /**
   * A lease whose message's TTL ran out before it did ends in expiry, which the TTL pass does:
   * taken here, a message on its last attempt would go to the DLQ as if its lease had ended first.
   */
  private static final String LEASE_ENDED_FIRST = "(expires_at IS NULL OR expires_at > lease_until)";

  static ReapResult expireLeases(WriterTx tx, LeaseExpiryRequest r) throws SQLException {
    long now = r.now().toEpochMilli();
    tx.leases.writeBackDue(tx, now);
    PreparedStatement ps =
        tx.prepare(
            "SELECT " + HeldRow.COLUMNS + " FROM messages INDEXED BY m_leased"
                + " WHERE state = 1 AND lease_until <= ? AND " + LEASE_ENDED_FIRST
                + " ORDER BY lease_until LIMIT ?");
    ps.setLong(1, now);
    ps.setInt(2, r.limit());
    List<HeldRow> due = HeldRow.readAll(ps);
    Map<String, Integer> visible = new HashMap<>();
    Map<String, Integer> dead = new HashMap<>();
    Map<String, Integer> dropped = new HashMap<>();
    Map<String, Integer> superseded = new HashMap<>();
    for (HeldRow h : due) {
      DeadLetterPolicy policy = r.policies().apply(h.queue());
      if (policy.attemptsUsedUp(h.attempt())) {
        Outcome o = SqliteSettle.toDead(tx, h, policy, DeadLetterPolicy.ATTEMPTS_USED_UP, now);
        (o == Outcome.DEAD ? dead : dropped).merge(h.queue(), 1, Integer::sum);
      } else if (h.superseded()) {
        // A newer publish with its key was made while it was leased: it is not ready again.
        SqliteSettle.delete(tx, h);
        superseded.merge(h.queue(), 1, Integer::sum);
      } else {
        SqliteSettle.toReady(tx, h, now, 0);
        visible.merge(h.queue(), 1, Integer::sum);
      }
    }
    return new ReapResult(visible, dead, dropped, Map.of(), superseded, due.size());
  }

  static ReapResult expireTtl(WriterTx tx, Instant at, int limit) throws SQLException {
    tx.leases.writeBackTtlDue(tx, at.toEpochMilli());
    PreparedStatement ps =
        tx.prepare(
            "SELECT seq, queue, state, lease_id, coalesce(lease_until, 0), attempt, original_queue,"
                + " 0 FROM messages INDEXED BY m_ttl"
                + " WHERE expires_at IS NOT NULL AND state < 2 AND expires_at <= ? LIMIT ?");
    ps.setLong(1, at.toEpochMilli());
    ps.setInt(2, limit);
    List<HeldRow> due = HeldRow.readAll(ps);
    PreparedStatement upd =
        tx.prepare(
            "UPDATE messages SET state = 2, lease_id = NULL, lease_until = NULL"
                + " WHERE seq = ? AND state = ?");
    Map<String, Integer> expired = new HashMap<>();
    for (HeldRow h : due) {
      upd.setLong(1, h.seq());
      upd.setInt(2, h.state());
      SqliteSettle.checkOne(upd.executeUpdate(), h);
      tx.delta.move(h.queue(), h.state(), h.originalQueue(), h.queue(), EXPIRED,
          h.originalQueue());
      expired.merge(h.queue(), 1, Integer::sum);
    }
    return new ReapResult(Map.of(), Map.of(), Map.of(), expired, Map.of(), due.size());
  }

  static int deleteExpired(WriterTx tx, Instant before, int limit) throws SQLException {
    PreparedStatement ps =
        tx.prepare(
            "SELECT seq, queue, state, lease_id, 0, attempt, original_queue, 0"
                + " FROM messages INDEXED BY m_expired WHERE state = 2 AND expires_at <= ? LIMIT ?");
    ps.setLong(1, before.toEpochMilli());
    ps.setInt(2, limit);
    List<HeldRow> due = HeldRow.readAll(ps);
    for (HeldRow h : due) {
      SqliteSettle.delete(tx, h);
    }
    return due.size();
  }

  static int pruneIdempotency(WriterTx tx, Instant now, int limit) throws SQLException {
    PreparedStatement ps =
        tx.prepare(
            "DELETE FROM idempotency WHERE (queue, ikey) IN"
                + " (SELECT queue, ikey FROM idempotency WHERE expires_at <= ? LIMIT ?)");
    ps.setLong(1, now.toEpochMilli());
    ps.setInt(2, limit);
    return ps.executeUpdate();
  }

  static Redriven redrive(WriterTx tx, RedriveRequest r, IdLookup ids) throws SQLException {
    // A dead-letter queue is consumed like any other: its leases held in memory are leases.
    tx.requireQueue(r.originalQueue());
    tx.leases.writeBackQueue(tx, r.deadLetterQueue());
    List<HeldRow> due = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    String select =
        "SELECT seq, queue, state, lease_id, 0, attempt, original_queue, 0 FROM messages"
            + " WHERE queue = ? AND original_queue = ? AND state = 0";
    if (r.ids() == null) {
      PreparedStatement ps = tx.prepare(select + " ORDER BY seq LIMIT ?");
      ps.setString(1, r.deadLetterQueue());
      ps.setString(2, r.originalQueue());
      ps.setInt(3, r.limit());
      due.addAll(HeldRow.readAll(ps));
    } else {
      PreparedStatement ps = tx.prepare(select + " AND seq = ?");
      Set<Long> seen = new HashSet<>();
      Set<String> named = new HashSet<>();
      for (String id : r.ids()) {
        if (!named.add(id)) {
          continue;
        }
        long seq = ids.seq(tx, r.deadLetterQueue(), id);
        // A repeated id must not move (and count) its message twice.
        if (seq >= 0 && !seen.add(seq)) {
          continue;
        }
        List<HeldRow> found = List.of();
        if (seq >= 0) {
          ps.setString(1, r.deadLetterQueue());
          ps.setString(2, r.originalQueue());
          ps.setLong(3, seq);
          found = HeldRow.readAll(ps);
        }
        if (found.isEmpty()) {
          skipped.add(id);
        }
        due.addAll(found);
      }
    }
    PreparedStatement upd =
        tx.prepare(
            "UPDATE messages SET queue = ?, visible_at = ?, attempt = 0, original_queue = NULL,"
                + " dead_reason = NULL, died_at = NULL WHERE seq = ? AND state = 0");
    for (HeldRow h : due) {
      upd.setString(1, r.originalQueue());
      upd.setLong(2, r.now().toEpochMilli());
      upd.setLong(3, h.seq());
      SqliteSettle.checkOne(upd.executeUpdate(), h);
      tx.delta.move(h.queue(), h.state(), h.originalQueue(), r.originalQueue(), h.state(), null);
      tx.leases.madeReady(tx, r.originalQueue(), r.now().toEpochMilli(), h.seq());
    }
    return new Redriven(due.size(), skipped);
  }
}
