package dev.wharf.store.sqlite;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseIds;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import dev.wharf.store.jdbc.MessageRows;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The SQL of claiming leases: picking the queue's first visible messages and leasing them. */
final class SqliteClaim {
  private static final int READY = MessageState.READY.code();
  private static final int LEASED = MessageState.LEASED.code();

  private SqliteClaim() {}

  static List<Delivery> claim(WriterTx tx, ClaimRequest r) throws SQLException {
    return lease(tx, r, pick(tx, r));
  }

  /** Claims read together ask for at most this many messages in all: one full claim's worth. */
  private static final int READ_TOGETHER = 100;

  /**
   * Claims of one queue that reached the writer together, in the order they came: claims of a
   * few messages share one read of the queue's head (up to {@link #READ_TOGETHER} messages in
   * all), then each leases its share. For a claim of one message that read is most of the cost
   * (the driver reads every column's name again for each query); for a claim of a hundred it is
   * not, and such claims run alone, as they measured slightly faster that way.
   */
  static List<List<Delivery>> claimTogether(WriterTx tx, List<ClaimRequest> claims)
      throws SQLException {
    List<List<Delivery>> out = new ArrayList<>(claims.size());
    int first = 0;
    while (first < claims.size()) {
      int end = first + 1;
      int wanted = claims.get(first).max();
      while (end < claims.size() && wanted + claims.get(end).max() <= READ_TOGETHER) {
        wanted += claims.get(end).max();
        end++;
      }
      out.addAll(end - first == 1
          ? List.of(claim(tx, claims.get(first)))
          : readTogether(tx, claims.subList(first, end), wanted));
      first = end;
    }
    return out;
  }

  private static List<List<Delivery>> readTogether(
      WriterTx tx, List<ClaimRequest> claims, int wanted) throws SQLException {
    Instant latest = claims.get(0).now();
    long bytesWanted = 0;
    for (ClaimRequest r : claims) {
      if (r.now().isAfter(latest)) {
        latest = r.now();
      }
      bytesWanted = saturatedAdd(bytesWanted, r.maxBytes());
    }
    List<Message> picked =
        pick(tx, new ClaimRequest(claims.get(0).queue(), wanted, latest, latest, bytesWanted));
    List<List<Delivery>> out = new ArrayList<>(claims.size());
    int from = 0;
    for (ClaimRequest r : claims) {
      // Each takes its share in turn, within its own count and byte bounds.
      int to = from;
      long bytes = 0;
      while (to < picked.size()) {
        bytes += ClaimRequest.size(picked.get(to));
        if (!r.takesNext(to - from, bytes)) {
          break;
        }
        to++;
      }
      out.add(lease(tx, r, picked.subList(from, to)));
      from = to;
    }
    return out;
  }

  private static long saturatedAdd(long a, long b) {
    return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
  }

  /** The queue's first {@code r.max()} visible messages within its byte bound, in delivery order. */
  private static List<Message> pick(WriterTx tx, ClaimRequest r) throws SQLException {
    MemoryLeases.Cursor after = tx.leases.cursor(r.queue());
    if (after == null) {
      return MessageRows.pickReady(tx.prepare(PICK), r);
    }
    PreparedStatement select = tx.prepare(PICK_AFTER);
    select.setLong(5, after.visibleAt());
    select.setLong(6, after.seq());
    return MessageRows.pickReady(select, r);
  }

  private static final String PICK =
      "SELECT " + MessageRows.READY_COLUMNS + " FROM messages INDEXED BY m_ready"
          + " WHERE queue = ? AND state = 0 AND visible_at <= ?"
          + " AND (expires_at IS NULL OR expires_at > ?)"
          + " ORDER BY visible_at, seq LIMIT ?";

  /**
   * {@link #PICK} from past the queue's cursor: the rows before it are leased in memory. Numbered
   * parameters keep the four that {@link MessageRows#pickReady} binds where it binds them.
   */
  private static final String PICK_AFTER =
      "SELECT " + MessageRows.READY_COLUMNS + " FROM messages INDEXED BY m_ready"
          + " WHERE queue = ?1 AND state = 0 AND (visible_at, seq) > (?5, ?6)"
          + " AND visible_at <= ?2 AND (expires_at IS NULL OR expires_at > ?3)"
          + " ORDER BY visible_at, seq LIMIT ?4";

  /**
   * Leases {@code picked} under {@code r}'s lease. The leases are held in memory ({@link
   * MemoryLeases}); their rows are written only if an ack does not come first.
   */
  private static List<Delivery> lease(WriterTx tx, ClaimRequest r, List<Message> picked) {
    if (picked.isEmpty()) {
      return List.of();
    }
    long until = r.leaseUntil().toEpochMilli();
    Instant untilInstant = Instant.ofEpochMilli(until);
    long granted = System.nanoTime();
    List<Delivery> out = new ArrayList<>(picked.size());
    for (Message m : picked) {
      String leaseId = LeaseIds.next(m.seq());
      tx.leases.hold(
          new MemoryLeases.Lease(
              m.seq(),
              m.queue(),
              m.originalQueue(),
              leaseId,
              until,
              m.expiresAt() == null ? Long.MAX_VALUE : m.expiresAt().toEpochMilli(),
              granted));
      out.add(new Delivery(m.leasedUntil(untilInstant), leaseId, untilInstant));
      tx.delta.move(m.queue(), READY, m.originalQueue(), m.queue(), LEASED, m.originalQueue());
    }
    Message last = picked.get(picked.size() - 1);
    tx.leases.advance(r.queue(), last.visibleAt().toEpochMilli(), last.seq());
    return out;
  }
}
