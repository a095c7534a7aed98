package dev.wharf.store.postgres;

import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.MessageState;
import dev.wharf.store.ReapResult;
import dev.wharf.store.RedriveRequest;
import dev.wharf.store.Redriven;
import dev.wharf.store.jdbc.HeldRow;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The SQL of the time-driven transitions and of redrive. Reapers lock the rows they pick with
 * {@code SKIP LOCKED}: a row a consumer is settling right now is left for the next pass rather
 * than waited on.
 */
final class PgReap {
  private static final int EXPIRED = MessageState.EXPIRED.code();

  // Each reaper's pick orders by the column of its partial index, so the plan walks that index
  // and stops at the limit whatever the statistics say: without the ORDER BY, stale statistics
  // after a burst of publishes made PostgreSQL scan the whole table on every pass.
  static final String DUE_LEASES =
      "SELECT " + HeldRow.COLUMNS + " FROM messages WHERE state = 1 AND lease_until <= ?"
          // A lease that outlived its message's TTL ends in the TTL pass's expiry, not here.
          + " AND (expires_at IS NULL OR expires_at > lease_until)"
          + " ORDER BY lease_until LIMIT ? FOR UPDATE SKIP LOCKED";
  static final String DUE_TTL =
      "SELECT seq, state, queue, original_queue FROM messages WHERE expires_at IS NOT NULL"
          + " AND state < 2 AND expires_at <= ? ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED";
  static final String EXPIRE_BY_SEQ =
      "UPDATE messages SET state = 2, lease_id = NULL, lease_until = NULL"
          + " WHERE seq = ANY(?) AND state < 2";
  static final String DELETE_EXPIRED =
      "DELETE FROM messages WHERE seq = ANY(ARRAY(SELECT seq FROM messages WHERE state = 2"
          + " AND expires_at <= ? ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED))"
          + " RETURNING queue, state, original_queue";
  static final String PRUNE_IDEMPOTENCY =
      "DELETE FROM idempotency WHERE ctid = ANY(ARRAY(SELECT ctid FROM idempotency"
          + " WHERE expires_at <= ? ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED))";

  private PgReap() {}

  static ReapResult expireLeases(PgTx tx, LeaseExpiryRequest r) throws SQLException {
    long now = r.now().toEpochMilli();
    PreparedStatement ps = tx.prepare(DUE_LEASES);
    ps.setLong(1, now);
    ps.setInt(2, r.limit());
    List<HeldRow> due = HeldRow.readAll(ps);
    PgChanges changes = new PgChanges(tx, now);
    Map<String, Integer> visible = new HashMap<>();
    Map<String, Integer> dead = new HashMap<>();
    Map<String, Integer> dropped = new HashMap<>();
    Map<String, Integer> superseded = new HashMap<>();
    for (HeldRow h : due) {
      DeadLetterPolicy policy = r.policies().apply(h.queue());
      if (policy.attemptsUsedUp(h.attempt())) {
        Outcome o = changes.toDead(h, policy, DeadLetterPolicy.ATTEMPTS_USED_UP);
        (o == Outcome.DEAD ? dead : dropped).merge(h.queue(), 1, Integer::sum);
      } else if (h.superseded()) {
        // A newer publish with its key was made while it was leased: it is not ready again.
        changes.delete(h);
        superseded.merge(h.queue(), 1, Integer::sum);
      } else {
        changes.toReady(h, now, 0);
        visible.merge(h.queue(), 1, Integer::sum);
      }
    }
    changes.flush();
    return new ReapResult(visible, dead, dropped, Map.of(), superseded, due.size());
  }

  static ReapResult expireTtl(PgTx tx, Instant at, int limit) throws SQLException {
    // Pick (rows locked, old state known), then change them by key: one UPDATE joining the pick
    // may be planned as a hash join over the whole table.
    PreparedStatement pick = tx.prepare(DUE_TTL);
    pick.setLong(1, at.toEpochMilli());
    pick.setInt(2, limit);
    List<Long> seqs = new ArrayList<>();
    Map<String, Integer> expired = new HashMap<>();
    try (ResultSet rs = pick.executeQuery()) {
      while (rs.next()) {
        seqs.add(rs.getLong(1));
        String queue = rs.getString(3);
        String origin = rs.getString(4);
        tx.delta.move(queue, rs.getInt(2), origin, queue, EXPIRED, origin);
        expired.merge(queue, 1, Integer::sum);
      }
    }
    if (!seqs.isEmpty()) {
      tx.changed = true;
      PreparedStatement expire = tx.prepare(EXPIRE_BY_SEQ);
      expire.setArray(1, tx.array("bigint", seqs.toArray()));
      if (expire.executeUpdate() != seqs.size()) {
        throw new SQLException("TTL expiry lost rows it had locked");
      }
    }
    return new ReapResult(Map.of(), Map.of(), Map.of(), expired, Map.of(), seqs.size());
  }

  static int deleteExpired(PgTx tx, Instant before, int limit) throws SQLException {
    PreparedStatement ps = tx.prepare(DELETE_EXPIRED);
    ps.setLong(1, before.toEpochMilli());
    ps.setInt(2, limit);
    int n = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        tx.delta.add(rs.getString(1), rs.getInt(2), rs.getString(3), -1);
        n++;
      }
    }
    tx.changed |= n > 0;
    return n;
  }

  static int pruneIdempotency(PgTx tx, Instant now, int limit) throws SQLException {
    PreparedStatement ps = tx.prepare(PRUNE_IDEMPOTENCY);
    ps.setLong(1, now.toEpochMilli());
    ps.setInt(2, limit);
    int n = ps.executeUpdate();
    tx.changed |= n > 0;
    return n;
  }

  static Redriven redrive(PgTx tx, RedriveRequest r) throws SQLException {
    tx.requireQueues(List.of(r.originalQueue()));
    // The id comes after the held columns, which HeldRow.read reads by position.
    String select =
        "SELECT " + HeldRow.COLUMNS + ", id FROM messages"
            + " WHERE queue = ? AND original_queue = ? AND state = 0";
    PreparedStatement ps;
    if (r.ids() == null) {
      ps = tx.prepare(select + " ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED");
      ps.setString(1, r.deadLetterQueue());
      ps.setString(2, r.originalQueue());
      ps.setInt(3, r.limit());
    } else {
      ps = tx.prepare(select + " AND id = ANY(?::text[]) ORDER BY seq FOR UPDATE SKIP LOCKED");
      ps.setString(1, r.deadLetterQueue());
      ps.setString(2, r.originalQueue());
      ps.setArray(3, tx.array("text", r.ids().toArray(new String[0])));
    }
    List<HeldRow> due = new ArrayList<>();
    Set<String> moved = new HashSet<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        due.add(HeldRow.read(rs));
        moved.add(rs.getString(HeldRow.COLUMN_COUNT + 1));
      }
    }
    PgChanges changes = new PgChanges(tx, r.now().toEpochMilli());
    for (HeldRow h : due) {
      changes.redrive(h, r.originalQueue());
    }
    changes.flush();
    List<String> skipped = new ArrayList<>();
    if (r.ids() != null) {
      for (String id : new LinkedHashSet<>(r.ids())) {
        if (!moved.contains(id)) {
          skipped.add(id);
        }
      }
    }
    return new Redriven(due.size(), skipped);
  }
}
