package dev.wharf.store.postgres;

import dev.wharf.store.jdbc.MessageRows;
import dev.wharf.store.MessageIds;
import dev.wharf.store.MessageState;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL of publishing. Plain messages of every publish waiting in a lane go in as one multi-row
 * insert; messages with an idempotency key or an upsert key are taken one at a time, in order.
 */
final class PgPublish {
  private static final int READY = MessageState.READY.code();

  private PgPublish() {}

  /** A publish with no keys at all: lanes merge these into one insert. */
  record Plain(PublishBatch batch) implements PgWriter.Mergeable<List<PublishResult>> {
    @Override
    public List<PublishResult> apply(PgTx tx) throws SQLException {
      return mergeAll(tx, List.of(this)).get(0);
    }
  }

  static boolean isPlain(PublishBatch b) {
    for (NewMessage m : b.messages()) {
      if (m.idempotencyKey() != null || m.key() != null) {
        return false;
      }
    }
    return true;
  }

  /** The merger of plain publishes: one insert for all, one result list per publish. */
  static List<List<PublishResult>> mergeAll(PgTx tx, List<Plain> ops) throws SQLException {
    tx.requireQueues(ops.stream().map(p -> p.batch().queue()).toList());
    Inserts rows = new Inserts();
    List<List<PublishResult>> out = new ArrayList<>(ops.size());
    for (Plain p : ops) {
      List<PublishResult> results = new ArrayList<>(p.batch().messages().size());
      for (NewMessage m : p.batch().messages()) {
        String id = MessageIds.random(p.batch().now().toEpochMilli());
        rows.add(p.batch(), m, id);
        results.add(new PublishResult(id, false, false));
      }
      out.add(results);
    }
    rows.flush(tx);
    return out;
  }

  /** Where an idempotency key's advisory lock lives, apart from the queue's upsert keys. */
  private static final String IDEMPOTENCY_SPACE = "idempotency\u0001";

  /**
   * {@code op}, a write of {@code b}, taking the keys of its messages first, in the lane's order
   * (see {@link PgWriter.KeyLocking}): an upsert key's lock, which {@link #replaceByKey} takes
   * again, and a lock for each idempotency key, so that its insert never waits for another
   * transaction's insert of that key while that one waits for a key this one holds.
   */
  static <T> PgWriter.Op<T> lockingKeys(PublishBatch b, PgWriter.Op<T> op) {
    List<PgWriter.AdvisoryKey> keys = new ArrayList<>();
    for (NewMessage m : b.messages()) {
      if (m.key() != null) {
        keys.add(new PgWriter.AdvisoryKey(b.queue(), m.key()));
      }
      if (m.idempotencyKey() != null) {
        keys.add(new PgWriter.AdvisoryKey(IDEMPOTENCY_SPACE + b.queue(), m.idempotencyKey()));
      }
    }
    if (keys.isEmpty()) {
      return op;
    }
    return new PgWriter.KeyLocking<T>() {
      @Override
      public List<PgWriter.AdvisoryKey> keys() {
        return keys;
      }

      @Override
      public T apply(PgTx tx) throws SQLException {
        return op.apply(tx);
      }
    };
  }

  /** A publish with keys: idempotency first, then the upsert, else a new row. */
  static List<PublishResult> publish(PgTx tx, PublishBatch b) throws SQLException {
    tx.requireQueues(List.of(b.queue()));
    List<PublishResult> out = new ArrayList<>(b.messages().size());
    Inserts pending = new Inserts();
    for (NewMessage m : b.messages()) {
      String id = MessageIds.random(b.now().toEpochMilli());
      if (m.idempotencyKey() != null && !claimIdempotency(tx, b, m, id)) {
        out.add(new PublishResult(firstOf(tx, b.queue(), m.idempotencyKey()), true, false));
        continue;
      }
      PublishResult r = null;
      if (m.key() != null) {
        // An earlier message of this batch may carry the same key: it must be a row by now.
        pending.flush(tx);
        r = replaceByKey(tx, b.queue(), m);
      }
      if (r == null) {
        pending.add(b, m, id);
        r = new PublishResult(id, false, false);
      } else if (m.idempotencyKey() != null) {
        PreparedStatement ps =
            tx.prepare("UPDATE idempotency SET message_id = ? WHERE queue = ? AND ikey = ?");
        ps.setString(1, r.id());
        ps.setString(2, b.queue());
        ps.setString(3, m.idempotencyKey());
        if (ps.executeUpdate() != 1) {
          throw new SQLException("idempotency key lost its row " + m.idempotencyKey());
        }
      }
      out.add(r);
    }
    pending.flush(tx);
    return out;
  }

  /**
   * Takes the key for this message unless a live entry holds it. The insert waits for a
   * concurrent writer of the same key (another lane or node) to commit, so two publishes with one
   * key can never both win.
   */
  private static boolean claimIdempotency(PgTx tx, PublishBatch b, NewMessage m, String id)
      throws SQLException {
    PreparedStatement ps =
        tx.prepare(
            "INSERT INTO idempotency(queue, ikey, message_id, expires_at) VALUES (?, ?, ?, ?)"
                + " ON CONFLICT (queue, ikey) DO UPDATE SET message_id = EXCLUDED.message_id,"
                + " expires_at = EXCLUDED.expires_at WHERE idempotency.expires_at <= ?");
    ps.setString(1, b.queue());
    ps.setString(2, m.idempotencyKey());
    ps.setString(3, id);
    ps.setLong(4, b.idempotencyUntil().toEpochMilli());
    ps.setLong(5, b.now().toEpochMilli());
    return ps.executeUpdate() == 1;
  }

  private static String firstOf(PgTx tx, String queue, String ikey) throws SQLException {
    PreparedStatement ps =
        tx.prepare("SELECT message_id FROM idempotency WHERE queue = ? AND ikey = ?");
    ps.setString(1, queue);
    ps.setString(2, ikey);
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new SQLException("idempotency key vanished " + ikey);
      }
      return rs.getString(1);
    }
  }

  /**
   * Marks leased rows of a key as replaced, so that their acks do not delete them; found by the
   * primary key (see {@link PgChanges} on the guard's spelling).
   */
  static final String SUPERSEDE_LEASED =
      "UPDATE messages SET superseded = true WHERE seq = ANY(?::int8[]) AND state + 0 = 1";

  /**
   * Every ready or leased row of a queue's key, locked. Spelled as an OR, not {@code IN}: so the
   * plan joins the two partial indexes {@code m_key} and {@code m_key_leased}.
   */
  static final String KEY_ROWS =
      "SELECT seq, state, superseded FROM messages WHERE queue = ? AND msg_key = ?"
          + " AND (state = 0 OR state = 1) ORDER BY seq FOR UPDATE";

  /**
   * Replaces the key's newest ready message in place, or, when there is none, marks its leased
   * ones superseded and returns null: the caller makes a new message, and a lease of theirs that
   * ends without an ack then deletes them instead of making them ready again beside it.
   */
  private static PublishResult replaceByKey(PgTx tx, String queue, NewMessage m)
      throws SQLException {
    // Serialises publishes of one key across lanes and nodes, so two cannot both insert.
    PreparedStatement lock =
        tx.prepare("SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))");
    lock.setString(1, queue);
    lock.setString(2, m.key());
    lock.execute();
    PreparedStatement upd =
        tx.prepare(
            MessageRows.REPLACE_CONTENT
                + " WHERE seq = (SELECT seq FROM messages WHERE queue = ? AND msg_key = ?"
                + " AND state = 0 ORDER BY seq DESC LIMIT 1 FOR UPDATE)"
                + " AND state = 0 RETURNING id");
    upd.setString(5, queue);
    upd.setString(6, m.key());
    PublishResult replaced = replace(upd, m);
    if (replaced != null) {
      return replaced;
    }
    // None was ready when that statement began. Settles, claims and reapers do not take the
    // key's lock, so a lease may have ended or begun since: every row of the key, ready or
    // leased, is locked and read as it is now, and nothing moves it until this commits.
    PreparedStatement live = tx.prepare(KEY_ROWS);
    live.setString(1, queue);
    live.setString(2, m.key());
    long newestReady = -1;
    List<Long> leased = new ArrayList<>();
    try (ResultSet rs = live.executeQuery()) {
      while (rs.next()) {
        if (rs.getInt(2) == READY) {
          newestReady = rs.getLong(1);
        } else if (!rs.getBoolean(3)) {
          leased.add(rs.getLong(1));
        }
      }
    }
    if (newestReady >= 0) {
      PreparedStatement bySeq =
          tx.prepare(
              MessageRows.REPLACE_CONTENT + " WHERE seq = ? AND state + 0 = 0 RETURNING id");
      bySeq.setLong(5, newestReady);
      replaced = replace(bySeq, m);
      if (replaced == null) {
        throw new SQLException("key upsert lost its locked row " + newestReady);
      }
      return replaced;
    }
    if (!leased.isEmpty()) {
      PreparedStatement mark = tx.prepare(SUPERSEDE_LEASED);
      mark.setArray(1, tx.array("int8", leased.toArray(new Long[0])));
      if (mark.executeUpdate() != leased.size()) {
        throw new SQLException("superseding lost rows it had locked");
      }
    }
    return null;
  }

  /** Runs an upsert whose first four parameters are the new content; null if it found no row. */
  private static PublishResult replace(PreparedStatement upd, NewMessage m) throws SQLException {
    MessageRows.setReplacedContent(upd, m);
    try (ResultSet rs = upd.executeQuery()) {
      return rs.next() ? new PublishResult(rs.getString(1), false, true) : null;
    }
  }

  /** New rows gathered for one multi-row insert. */
  private static final class Inserts {
    private final List<PublishBatch> batches = new ArrayList<>();
    private final List<NewMessage> messages = new ArrayList<>();
    private final List<String> assigned = new ArrayList<>();

    void add(PublishBatch b, NewMessage m, String id) {
      batches.add(b);
      messages.add(m);
      assigned.add(id);
    }

    void flush(PgTx tx) throws SQLException {
      int n = messages.size();
      if (n == 0) {
        return;
      }
      String[] ids = new String[n];
      String[] queues = new String[n];
      Integer[] types = new Integer[n];
      byte[][] payloads = new byte[n][];
      String[] headers = new String[n];
      String[] metadata = new String[n];
      Long[] published = new Long[n];
      Long[] visible = new Long[n];
      Long[] expires = new Long[n];
      String[] keys = new String[n];
      for (int i = 0; i < n; i++) {
        PublishBatch b = batches.get(i);
        NewMessage m = messages.get(i);
        ids[i] = assigned.get(i);
        queues[i] = b.queue();
        types[i] = m.contentType().ordinal();
        payloads[i] = m.payload();
        headers[i] = MessageRows.headers(m.headers());
        metadata[i] = m.metadata();
        published[i] = b.now().toEpochMilli();
        visible[i] = m.visibleAt().toEpochMilli();
        expires[i] = MessageRows.millis(m.expiresAt());
        keys[i] = m.key();
        tx.delta.add(b.queue(), READY, null, 1);
        if (visible[i] <= published[i]) {
          tx.visibleNow(b.queue());
        } else {
          tx.visibleLater(b.queue(), visible[i]);
        }
      }
      PreparedStatement ps =
          tx.prepare(
              "INSERT INTO messages(id, queue, state, content_type, payload, headers, metadata,"
                  + " attempt, published_at, visible_at, expires_at, msg_key)"
                  + " SELECT i, q, 0, t, p, h, md, 0, pa, va, ea, k FROM unnest(?::text[],"
                  + " ?::text[], ?::int4[], ?::bytea[], ?::text[], ?::text[], ?::int8[],"
                  + " ?::int8[], ?::int8[], ?::text[])"
                  + " WITH ORDINALITY AS u(i, q, t, p, h, md, pa, va, ea, k, o) ORDER BY o");
      ps.setArray(1, tx.array("text", ids));
      ps.setArray(2, tx.array("text", queues));
      ps.setArray(3, tx.array("int4", types));
      ps.setArray(4, tx.array("bytea", payloads));
      ps.setArray(5, tx.array("text", headers));
      ps.setArray(6, tx.array("text", metadata));
      ps.setArray(7, tx.array("int8", published));
      ps.setArray(8, tx.array("int8", visible));
      ps.setArray(9, tx.array("int8", expires));
      ps.setArray(10, tx.array("text", keys));
      int rows = ps.executeUpdate();
      if (rows != n) {
        throw new SQLException("inserted " + rows + " of " + n + " messages");
      }
      batches.clear();
      messages.clear();
      assigned.clear();
    }
  }
}
