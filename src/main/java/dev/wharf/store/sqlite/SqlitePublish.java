package dev.wharf.store.sqlite;

import dev.wharf.store.MessageIds;
import dev.wharf.store.MessageState;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.jdbc.MessageRows;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/** The SQL of publishing, with idempotency keys and key upserts. */
final class SqlitePublish {
  private static final int READY = MessageState.READY.code();

  private SqlitePublish() {}

  static List<PublishResult> publish(WriterTx tx, PublishBatch b) throws SQLException {
    tx.requireQueue(b.queue());
    long now = b.now().toEpochMilli();
    if (b.messages().size() > 1 && allPlain(b)) {
      return insertPlainRows(tx, b.queue(), List.of(b));
    }
    List<PublishResult> out = new ArrayList<>(b.messages().size());
    for (NewMessage m : b.messages()) {
      if (m.idempotencyKey() != null) {
        String first = idempotentFirst(tx, b.queue(), m.idempotencyKey(), now);
        if (first != null) {
          out.add(new PublishResult(first, true, false));
          continue;
        }
      }
      PublishResult r = m.key() != null ? replaceByKey(tx, b.queue(), m) : null;
      if (r == null) {
        r = new PublishResult(insert(tx, b.queue(), m, now), false, false);
      }
      if (m.idempotencyKey() != null) {
        PreparedStatement ps =
            tx.prepare(
                "INSERT OR REPLACE INTO idempotency(queue, ikey, message_id, expires_at)"
                    + " VALUES (?, ?, ?, ?)");
        ps.setString(1, b.queue());
        ps.setString(2, m.idempotencyKey());
        ps.setString(3, r.id());
        ps.setLong(4, b.idempotencyUntil().toEpochMilli());
        ps.executeUpdate();
      }
      out.add(r);
    }
    return out;
  }

  private static String idempotentFirst(WriterTx tx, String queue, String key, long now)
      throws SQLException {
    PreparedStatement ps =
        tx.prepare(
            "SELECT message_id FROM idempotency WHERE queue = ? AND ikey = ? AND expires_at > ?");
    ps.setString(1, queue);
    ps.setString(2, key);
    ps.setLong(3, now);
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  private static PublishResult replaceByKey(WriterTx tx, String queue, NewMessage m)
      throws SQLException {
    KeyedRow row = findByKey(tx, queue, m.key());
    if (row != null && tx.leases.get(row.seq()) != null) {
      // Leased, though its row does not say so yet: a leased message is never replaced.
      tx.leases.writeBackQueue(tx, queue);
      row = findByKey(tx, queue, m.key());
    }
    if (row == null) {
      supersedeLeased(tx, queue, m.key());
      return null;
    }
    PreparedStatement upd =
        tx.prepare(MessageRows.REPLACE_CONTENT + " WHERE seq = ? AND state = 0");
    MessageRows.setReplacedContent(upd, m);
    upd.setLong(5, row.seq());
    if (upd.executeUpdate() != 1) {
      throw new SQLException("key upsert lost its row " + row.seq());
    }
    tx.upserted(row.seq());
    return new PublishResult(row.id(), false, true);
  }

  /**
   * A new message is made for this key: the queue's leased messages with the key are marked, so
   * that a lease of theirs that ends without an ack deletes them instead of making them ready
   * again beside the newer one ({@code SqliteSettle}, {@code SqliteReap}). Every one of them is in
   * its row as leased by now: a lease of the key's held in memory is a ready row that {@link
   * #findByKey} finds, and the queue's leases were written back then.
   */
  private static void supersedeLeased(WriterTx tx, String queue, String key) throws SQLException {
    PreparedStatement ps =
        tx.prepare(
            "UPDATE messages INDEXED BY m_key_leased SET superseded = 1"
                + " WHERE queue = ? AND msg_key = ? AND state = 1 AND superseded = 0");
    ps.setString(1, queue);
    ps.setString(2, key);
    ps.executeUpdate();
  }

  private record KeyedRow(long seq, String id) {}

  /** The newest ready message of the queue with this key, or null. */
  private static KeyedRow findByKey(WriterTx tx, String queue, String key) throws SQLException {
    PreparedStatement find =
        tx.prepare(
            "SELECT seq, id FROM messages WHERE queue = ? AND msg_key = ? AND state = 0"
                + " ORDER BY seq DESC LIMIT 1");
    find.setString(1, queue);
    find.setString(2, key);
    try (ResultSet rs = find.executeQuery()) {
      return rs.next() ? new KeyedRow(rs.getLong(1), rs.getString(2)) : null;
    }
  }

  /**
   * A message with no headers, metadata, TTL or key (the common case) binds only the first seven
   * parameters: each one costs the writer a call into the driver, so columns left NULL are not
   * named at all.
   */
  private static final String INSERT_PLAIN =
      "INSERT INTO messages(seq, id, queue, state, content_type, payload, attempt, published_at,"
          + " visible_at) VALUES (?, ?, ?, 0, ?, ?, 0, ?, ?)";

  private static final String INSERT_FULL =
      "INSERT INTO messages(seq, id, queue, state, content_type, payload, attempt, published_at,"
          + " visible_at, headers, metadata, expires_at, msg_key)"
          + " VALUES (?, ?, ?, 0, ?, ?, 0, ?, ?, ?, ?, ?, ?)";

  /** Longest multi-row INSERT: 64 rows of 7 parameters, far below SQLite's limit of 32,766. */
  private static final int MAX_ROWS = 64;

  /** {@code INSERT_PLAIN} with 1, 2, 4, ... {@link #MAX_ROWS} rows, by log2 of the count. */
  private static final String[] PLAIN_ROWS = new String[Integer.numberOfTrailingZeros(MAX_ROWS) + 1];

  static {
    for (int i = 0; i < PLAIN_ROWS.length; i++) {
      StringBuilder sql =
          new StringBuilder(
              "INSERT INTO messages(seq, id, queue, state, content_type, payload, attempt,"
                  + " published_at, visible_at) VALUES ");
      for (int r = 0; r < 1 << i; r++) {
        sql.append(r == 0 ? "" : ", ").append("(?, ?, ?, 0, ?, ?, 0, ?, ?)");
      }
      PLAIN_ROWS[i] = sql.toString();
    }
  }

  /**
   * Plain publishes to one queue that reached the writer together, in the order they came: their
   * rows go in the same multi-row INSERTs, where one request's publish of one message would
   * otherwise run a statement of its own. Each request gets its own messages' results.
   */
  static List<List<PublishResult>> publishPlainTogether(WriterTx tx, List<PublishBatch> batches)
      throws SQLException {
    tx.requireQueue(batches.get(0).queue());
    List<PublishResult> all = insertPlainRows(tx, batches.get(0).queue(), batches);
    List<List<PublishResult>> out = new ArrayList<>(batches.size());
    int from = 0;
    for (PublishBatch b : batches) {
      int to = from + b.messages().size();
      out.add(all.subList(from, to));
      from = to;
    }
    return out;
  }

  /** Whether every message of the batch is {@link #plain}. */
  static boolean allPlain(PublishBatch b) {
    for (NewMessage m : b.messages()) {
      if (!plain(m)) {
        return false;
      }
    }
    return true;
  }

  /** No headers, metadata, TTL, key or idempotency key: a row of the seven plain columns. */
  private static boolean plain(NewMessage m) {
    return m.headers().isEmpty()
        && m.metadata() == null
        && m.expiresAt() == null
        && m.key() == null
        && m.idempotencyKey() == null;
  }

  /**
   * A batch of plain messages goes in multi-row INSERTs of 64, 32, ... 1 rows: one statement
   * step for many rows instead of one each, which roughly halved the insert time of 100-message
   * batches in a bare loop (see docs/benchmark-log.md). Powers of two keep the cached statements
   * few.
   */
  private static List<PublishResult> insertPlainRows(
      WriterTx tx, String queue, List<PublishBatch> batches) throws SQLException {
    int total = 0;
    for (PublishBatch b : batches) {
      total += b.messages().size();
    }
    List<PublishResult> out = new ArrayList<>(total);
    // The rows in order, each batch's messages with its own publish time.
    int batch = 0;
    int inBatch = 0;
    int i = 0;
    MemoryLeases.Cursor cursor = tx.leases.cursor(queue);
    while (i < total) {
      int rows = Integer.highestOneBit(Math.min(total - i, MAX_ROWS));
      PreparedStatement ps = tx.prepare(PLAIN_ROWS[Integer.numberOfTrailingZeros(rows)]);
      int p = 1;
      for (int r = 0; r < rows; r++) {
        while (inBatch == batches.get(batch).messages().size()) {
          batch++;
          inBatch = 0;
        }
        PublishBatch b = batches.get(batch);
        NewMessage m = b.messages().get(inBatch++);
        long seq = tx.nextSeq();
        long now = b.now().toEpochMilli();
        long visibleAt = m.visibleAt().toEpochMilli();
        if (cursor != null && cursor.atOrAfter(visibleAt, seq)) {
          tx.leases.writeBackQueue(tx, queue);
          cursor = null;
        }
        String id = MessageIds.sequenced(now, seq);
        ps.setLong(p++, seq);
        ps.setString(p++, id);
        ps.setString(p++, queue);
        ps.setInt(p++, MessageRows.contentType(m.contentType()));
        ps.setBytes(p++, m.payload());
        ps.setLong(p++, now);
        ps.setLong(p++, visibleAt);
        out.add(new PublishResult(id, false, false));
      }
      if (ps.executeUpdate() != rows) {
        throw new SQLException("a multi-row insert wrote fewer rows than it had");
      }
      tx.delta.add(queue, READY, null, rows);
      i += rows;
    }
    return out;
  }

  /** Writes one new message and returns the id it was given. */
  private static String insert(WriterTx tx, String queue, NewMessage m, long now)
      throws SQLException {
    String headers = MessageRows.headers(m.headers());
    Long expiresAt = MessageRows.millis(m.expiresAt());
    boolean plain =
        headers == null && m.metadata() == null && expiresAt == null && m.key() == null;
    PreparedStatement ps = tx.prepare(plain ? INSERT_PLAIN : INSERT_FULL);
    long seq = tx.nextSeq();
    String id = MessageIds.sequenced(now, seq);
    ps.setLong(1, seq);
    ps.setString(2, id);
    ps.setString(3, queue);
    ps.setInt(4, MessageRows.contentType(m.contentType()));
    ps.setBytes(5, m.payload());
    ps.setLong(6, now);
    ps.setLong(7, m.visibleAt().toEpochMilli());
    if (!plain) {
      ps.setString(8, headers);
      ps.setString(9, m.metadata());
      setNullableLong(ps, 10, expiresAt);
      ps.setString(11, m.key());
    }
    ps.executeUpdate();
    tx.delta.add(queue, READY, null, 1);
    tx.leases.madeReady(tx, queue, m.visibleAt().toEpochMilli(), seq);
    return id;
  }

  static void setNullableLong(PreparedStatement ps, int i, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(i, Types.INTEGER);
    } else {
      ps.setLong(i, v);
    }
  }
}
