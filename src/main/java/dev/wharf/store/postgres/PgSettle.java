package dev.wharf.store.postgres;

import dev.wharf.store.LeaseIds;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settling leases: every named row is read and locked with one statement, the outcome of each
 * lease decided as in the SQLite backend, and the changes written per kind in one statement each.
 * The lock keeps a reaper or another node from changing a row between the decision and the write.
 */
final class PgSettle {
  private static final int LEASED = MessageState.LEASED.code();

  private PgSettle() {}

  /**
   * Acks in one statement: deletes the rows whose current, unexpired lease is named, found by the
   * primary key (see {@link PgChanges} on the guard's spelling).
   */
  static final String ACK_CURRENT =
      "DELETE FROM messages m USING unnest(?::int8[], ?::text[]) AS u(s, l)"
          + " WHERE m.seq = u.s AND m.lease_id = u.l AND m.queue = ? AND m.state + 0 = 1"
          + " AND m.lease_until > ? RETURNING m.lease_id, m.original_queue";

  /** A settle as a lane's operation, whose commit need not wait for the WAL flush. */
  static PgWriter.LazyCommit<List<LeaseOutcome>> op(SettleRequest r) {
    return tx -> settle(tx, r);
  }

  static List<LeaseOutcome> settle(PgTx tx, SettleRequest r) throws SQLException {
    long now = r.now().toEpochMilli();
    Set<String> acked =
        r.kind() == SettleKind.ACK && !r.permissive() ? ackCurrent(tx, r, now) : Set.of();
    if (acked.size() == r.leaseIds().size()) {
      List<LeaseOutcome> out = new ArrayList<>(acked.size());
      for (String leaseId : r.leaseIds()) {
        out.add(LeaseOutcome.of(leaseId, Outcome.ACKED));
      }
      return out;
    }
    List<String> rest = new ArrayList<>();
    for (String leaseId : r.leaseIds()) {
      if (!acked.contains(leaseId)) {
        rest.add(leaseId);
      }
    }
    Map<Long, HeldRow> rows = lock(tx, rest);
    PgChanges changes = new PgChanges(tx, now);
    List<LeaseOutcome> out = new ArrayList<>(r.leaseIds().size());
    for (String leaseId : r.leaseIds()) {
      if (acked.contains(leaseId)) {
        out.add(LeaseOutcome.of(leaseId, Outcome.ACKED));
        continue;
      }
      long seq = LeaseIds.seqOf(leaseId);
      HeldRow h = seq < 0 ? null : rows.get(seq);
      Outcome refused = HeldRow.refusal(r, leaseId, h);
      if (refused != null) {
        out.add(LeaseOutcome.of(leaseId, refused));
        continue;
      }
      out.add(apply(changes, rows, r, h, leaseId, now));
    }
    changes.flush();
    return out;
  }

  /**
   * The common case in one statement: deletes the rows whose current, unexpired lease is named,
   * and returns those lease ids. Whatever it leaves is judged one by one.
   */
  private static Set<String> ackCurrent(PgTx tx, SettleRequest r, long now) throws SQLException {
    List<Long> seqs = new ArrayList<>(r.leaseIds().size());
    List<String> ids = new ArrayList<>(r.leaseIds().size());
    for (String id : r.leaseIds()) {
      long seq = LeaseIds.seqOf(id);
      if (seq >= 0) {
        seqs.add(seq);
        ids.add(id);
      }
    }
    Set<String> acked = new HashSet<>();
    if (seqs.isEmpty()) {
      return acked;
    }
    PreparedStatement ps = tx.prepare(ACK_CURRENT);
    ps.setArray(1, tx.array("int8", seqs.toArray(new Long[0])));
    ps.setArray(2, tx.array("text", ids.toArray(new String[0])));
    ps.setString(3, r.queue());
    ps.setLong(4, now);
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        acked.add(rs.getString(1));
        tx.changed = true;
        tx.delta.add(r.queue(), LEASED, rs.getString(2), -1);
      }
    }
    return acked;
  }

  private static Map<Long, HeldRow> lock(PgTx tx, List<String> leaseIds) throws SQLException {
    List<Long> seqs = LeaseIds.seqsOf(leaseIds);
    Map<Long, HeldRow> rows = new HashMap<>();
    if (seqs.isEmpty()) {
      return rows;
    }
    PreparedStatement ps =
        tx.prepare(
            "SELECT " + HeldRow.COLUMNS + " FROM messages WHERE seq = ANY(?::int8[])"
                + " ORDER BY seq FOR UPDATE");
    ps.setArray(1, tx.array("int8", seqs.toArray(new Long[0])));
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        HeldRow h = HeldRow.read(rs);
        rows.put(h.seq(), h);
      }
    }
    return rows;
  }

  /** Applies one lease's change and records the row's new state for later leases of the batch. */
  private static LeaseOutcome apply(PgChanges changes, Map<Long, HeldRow> rows, SettleRequest r,
      HeldRow h, String leaseId, long now) throws SQLException {
    return switch (r.kind()) {
      case ACK -> {
        changes.delete(h);
        rows.remove(h.seq());
        yield LeaseOutcome.of(leaseId, Outcome.ACKED);
      }
      case RETRY -> {
        if (r.policy().attemptsUsedUp(h.attempt())) {
          yield LeaseOutcome.of(leaseId, dead(changes, rows, r, h, r.deadReason()));
        }
        yield toReadyOrGone(
            changes, rows, h, r.visibleAt().toEpochMilli(), 0, leaseId, Outcome.RETRIED);
      }
      case DEFER ->
          toReadyOrGone(
              changes, rows, h, r.visibleAt().toEpochMilli(), -1, leaseId, Outcome.DEFERRED);
      case RELEASE -> toReadyOrGone(changes, rows, h, now, -1, leaseId, Outcome.RELEASED);
      case DEAD -> LeaseOutcome.of(leaseId, dead(changes, rows, r, h, r.deadReason()));
      case EXTEND -> {
        long until = Math.max(h.leaseUntil(), r.leaseUntil().toEpochMilli());
        changes.extend(h, until);
        rows.put(h.seq(), new HeldRow(h.seq(), h.queue(), h.state(), h.leaseId(), until,
            h.attempt(), h.originalQueue(), h.superseded()));
        yield new LeaseOutcome(leaseId, Outcome.EXTENDED, Instant.ofEpochMilli(until));
      }
    };
  }

  /**
   * A lease ends without an ack and its message would be ready again: so it is, unless a newer
   * publish with its key superseded it while it was leased. Then it is deleted, and the consumer
   * is answered {@code outcome} all the same.
   */
  private static LeaseOutcome toReadyOrGone(PgChanges changes, Map<Long, HeldRow> rows,
      HeldRow h, long visibleAt, int attemptChange, String leaseId, Outcome outcome)
      throws SQLException {
    if (h.superseded()) {
      changes.delete(h);
      rows.remove(h.seq());
      return LeaseOutcome.ofSuperseded(leaseId, outcome);
    }
    changes.toReady(h, visibleAt, attemptChange);
    rows.put(h.seq(), h.ready(attemptChange));
    return LeaseOutcome.of(leaseId, outcome);
  }

  private static Outcome dead(PgChanges changes, Map<Long, HeldRow> rows, SettleRequest r,
      HeldRow h, String reason) throws SQLException {
    Outcome o = changes.toDead(h, r.policy(), reason);
    if (o == Outcome.DEAD) {
      rows.put(h.seq(), h.withQueue(r.policy().deadLetterQueue(), 0, h.queue()));
    } else {
      rows.remove(h.seq());
    }
    return o;
  }
}
