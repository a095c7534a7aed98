package dev.wharf.store.postgres;

import dev.wharf.store.jdbc.MessageRows;
import dev.wharf.store.ClaimRequest;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseIds;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The SQL of claiming leases: a batch of rows picked and leased in two statements. */
final class PgClaim {
  private static final int READY = MessageState.READY.code();
  private static final int LEASED = MessageState.LEASED.code();

  private PgClaim() {}

  /**
   * Leases the rows a claim picked (and locked), each under its own lease id, found by the
   * primary key: see {@link PgChanges} on the guard's spelling.
   */
  static final String LEASE =
      "UPDATE messages m SET state = 1, lease_id = u.l, lease_until = ?,"
          + " attempt = m.attempt + 1 FROM unnest(?::int8[], ?::text[]) AS u(s, l)"
          + " WHERE m.seq = u.s AND m.state + 0 = 0 RETURNING m.seq, m.payload";

  /** A claim as a lane's operation, whose commit need not wait for the WAL flush. */
  static PgWriter.LazyCommit<List<Delivery>> op(ClaimRequest r) {
    return tx -> claim(tx, r);
  }

  /**
   * Picks the oldest visible ready rows, skipping rows another transaction holds (a claim in
   * another lane or on another node, or a reaper), so claimers never wait on one another and never
   * take the same row; then leases them all with one update, guarded by state and counted. The
   * pick reads payload lengths, not payloads: the driver fetches a result whole, and rows past the
   * claim's byte bound would otherwise all be read into memory to be dropped. The update returns
   * the payloads of just the rows taken.
   */
  static List<Delivery> claim(PgTx tx, ClaimRequest r) throws SQLException {
    PreparedStatement select =
        tx.prepare(
            "SELECT " + MessageRows.READY_COLUMNS_PAYLOAD_LENGTH + " FROM messages"
                + " WHERE queue = ? AND state = 0 AND visible_at <= ?"
                + " AND (expires_at IS NULL OR expires_at > ?)"
                + " ORDER BY visible_at, seq LIMIT ? FOR UPDATE SKIP LOCKED");
    List<Message> picked = MessageRows.pickReadyByLength(select, r);
    if (picked.isEmpty()) {
      return List.of();
    }
    int n = picked.size();
    Long[] seqs = new Long[n];
    String[] leaseIds = new String[n];
    for (int i = 0; i < n; i++) {
      seqs[i] = picked.get(i).seq();
      leaseIds[i] = LeaseIds.next(seqs[i]);
    }
    long until = r.leaseUntil().toEpochMilli();
    PreparedStatement lease = tx.prepare(LEASE);
    lease.setLong(1, until);
    lease.setArray(2, tx.array("int8", seqs));
    lease.setArray(3, tx.array("text", leaseIds));
    tx.changed = true;
    Map<Long, byte[]> payloads = HashMap.newHashMap(n);
    try (ResultSet rs = lease.executeQuery()) {
      while (rs.next()) {
        payloads.put(rs.getLong(1), rs.getBytes(2));
      }
    }
    if (payloads.size() != n) {
      throw new SQLException("claim leased " + payloads.size() + " of " + n + " locked rows");
    }
    Instant untilInstant = Instant.ofEpochMilli(until);
    List<Delivery> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Message m = picked.get(i).withPayload(payloads.get(seqs[i]));
      tx.delta.move(m.queue(), READY, m.originalQueue(), m.queue(), LEASED, m.originalQueue());
      out.add(new Delivery(m.leasedUntil(untilInstant), leaseIds[i], untilInstant));
    }
    return out;
  }
}
