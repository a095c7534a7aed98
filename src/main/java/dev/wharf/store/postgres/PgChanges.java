package dev.wharf.store.postgres;

import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.MessageState;
import dev.wharf.store.jdbc.HeldRow;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Row changes of one settle, reaper pass or redrive, gathered per kind and written with one
 * statement per kind ({@code ... FROM unnest(...)}). The rows were locked when they were read, so
 * every guarded statement must change exactly the rows it names: any other count is a bug and
 * fails the transaction. A row changed twice in one request is written in order (the gathered
 * changes are flushed first).
 */
final class PgChanges {
  private static final int READY = MessageState.READY.code();
  private static final int LEASED = MessageState.LEASED.code();

  private final PgTx tx;
  private final long now;
  private final Set<Long> touched = new HashSet<>();
  private final List<HeldRow> deletes = new ArrayList<>();
  private final List<HeldRow> readies = new ArrayList<>();
  private final List<Long> readyAt = new ArrayList<>();
  private final List<Integer> readyAttempt = new ArrayList<>();
  private final List<HeldRow> deads = new ArrayList<>();
  private final List<String> deadQueue = new ArrayList<>();
  private final List<String> deadReason = new ArrayList<>();
  private final List<HeldRow> extended = new ArrayList<>();
  private final List<Long> extendTo = new ArrayList<>();
  private final List<HeldRow> redriven = new ArrayList<>();
  private final List<String> redriveTo = new ArrayList<>();

  // Each changes the rows of a seq array, locked already, and finds them by the primary key. A
  // state guard is written state + 0 = n: a plain state = n would let the planner take the
  // partial index of that state (m_ready, m_leased), which statistics older than a burst of
  // publishes show as nearly empty, and read it whole for every statement
  // (PgKeyedWritePlanTest).
  static final String DELETE_ROWS =
      "DELETE FROM messages m USING unnest(?::int8[], ?::int4[]) AS u(s, st)"
          + " WHERE m.seq = u.s AND m.state = u.st";

  static final String READY_ROWS =
      "UPDATE messages m SET state = 0, visible_at = u.v, lease_id = NULL,"
          + " lease_until = NULL, attempt = greatest(m.attempt + u.a, 0)"
          + " FROM unnest(?::int8[], ?::int8[], ?::int4[]) AS u(s, v, a)"
          + " WHERE m.seq = u.s AND m.state + 0 = 1";

  static final String DEAD_ROWS =
      "UPDATE messages m SET queue = u.q, state = 0, visible_at = ?, attempt = 0,"
          + " lease_id = NULL, lease_until = NULL, expires_at = NULL, msg_key = NULL,"
          + " superseded = false, original_queue = m.queue, dead_reason = u.r,"
          + " died_at = ?"
          + " FROM unnest(?::int8[], ?::int4[], ?::text[], ?::text[]) AS u(s, st, q, r)"
          + " WHERE m.seq = u.s AND m.state = u.st";

  static final String EXTEND_ROWS =
      "UPDATE messages m SET lease_until = u.t FROM unnest(?::int8[], ?::int8[]) AS u(s, t)"
          + " WHERE m.seq = u.s AND m.state + 0 = 1";

  static final String REDRIVE_ROWS =
      "UPDATE messages m SET queue = u.q, visible_at = ?, attempt = 0,"
          + " original_queue = NULL, dead_reason = NULL, died_at = NULL"
          + " FROM unnest(?::int8[], ?::text[]) AS u(s, q)"
          + " WHERE m.seq = u.s AND m.state + 0 = 0";

  PgChanges(PgTx tx, long now) {
    this.tx = tx;
    this.now = now;
  }

  private void touch(HeldRow h) throws SQLException {
    tx.changed = true;
    if (!touched.add(h.seq())) {
      flush();
      touched.add(h.seq());
    }
  }

  void delete(HeldRow h) throws SQLException {
    touch(h);
    deletes.add(h);
    tx.delta.add(h.queue(), h.state(), h.originalQueue(), -1);
  }

  /**
   * Back to ready in the same queue.
   *
   * @param attemptChange 0 keeps the attempt counted, -1 takes it back (defer, release)
   */
  void toReady(HeldRow h, long visibleAt, int attemptChange) throws SQLException {
    touch(h);
    readies.add(h);
    readyAt.add(visibleAt);
    readyAttempt.add(attemptChange);
    tx.delta.move(h.queue(), LEASED, h.originalQueue(), h.queue(), READY, h.originalQueue());
    if (visibleAt <= now) {
      tx.visibleNow(h.queue());
    } else {
      tx.visibleLater(h.queue(), visibleAt);
    }
  }

  /**
   * To the DLQ, ready with attempt 0, or dropped when the queue has none. It loses its key and
   * any superseded mark, so that a lease a consumer of the DLQ takes on it ends as any other.
   */
  Outcome toDead(HeldRow h, DeadLetterPolicy policy, String reason) throws SQLException {
    if (policy.deadLetterQueue() == null) {
      delete(h);
      return Outcome.DROPPED;
    }
    touch(h);
    deads.add(h);
    deadQueue.add(policy.deadLetterQueue());
    deadReason.add(reason);
    tx.delta.move(h.queue(), h.state(), h.originalQueue(), policy.deadLetterQueue(), READY,
        h.queue());
    tx.visibleNow(policy.deadLetterQueue());
    return Outcome.DEAD;
  }

  void extend(HeldRow h, long until) throws SQLException {
    touch(h);
    extended.add(h);
    extendTo.add(until);
  }

  /** A dead message back to the queue it came from, ready now, attempt 0. */
  void redrive(HeldRow h, String toQueue) throws SQLException {
    touch(h);
    redriven.add(h);
    redriveTo.add(toQueue);
    tx.delta.move(h.queue(), h.state(), h.originalQueue(), toQueue, h.state(), null);
    tx.visibleNow(toQueue);
  }

  void flush() throws SQLException {
    if (!deletes.isEmpty()) {
      PreparedStatement ps =
          tx.prepare(DELETE_ROWS);
      ps.setArray(1, tx.array("int8", seqs(deletes)));
      ps.setArray(2, tx.array("int4", states(deletes)));
      check(ps.executeUpdate(), deletes, "delete");
      deletes.clear();
    }
    if (!readies.isEmpty()) {
      PreparedStatement ps =
          tx.prepare(READY_ROWS);
      ps.setArray(1, tx.array("int8", seqs(readies)));
      ps.setArray(2, tx.array("int8", readyAt.toArray(new Long[0])));
      ps.setArray(3, tx.array("int4", readyAttempt.toArray(new Integer[0])));
      check(ps.executeUpdate(), readies, "ready");
      readies.clear();
      readyAt.clear();
      readyAttempt.clear();
    }
    if (!deads.isEmpty()) {
      tx.requireQueues(deadQueue);
      PreparedStatement ps =
          tx.prepare(DEAD_ROWS);
      ps.setLong(1, now);
      ps.setLong(2, now);
      ps.setArray(3, tx.array("int8", seqs(deads)));
      ps.setArray(4, tx.array("int4", states(deads)));
      ps.setArray(5, tx.array("text", deadQueue.toArray(new String[0])));
      ps.setArray(6, tx.array("text", deadReason.toArray(new String[0])));
      check(ps.executeUpdate(), deads, "dead");
      deads.clear();
      deadQueue.clear();
      deadReason.clear();
    }
    if (!extended.isEmpty()) {
      PreparedStatement ps =
          tx.prepare(EXTEND_ROWS);
      ps.setArray(1, tx.array("int8", seqs(extended)));
      ps.setArray(2, tx.array("int8", extendTo.toArray(new Long[0])));
      check(ps.executeUpdate(), extended, "extend");
      extended.clear();
      extendTo.clear();
    }
    if (!redriven.isEmpty()) {
      PreparedStatement ps =
          tx.prepare(REDRIVE_ROWS);
      ps.setLong(1, now);
      ps.setArray(2, tx.array("int8", seqs(redriven)));
      ps.setArray(3, tx.array("text", redriveTo.toArray(new String[0])));
      check(ps.executeUpdate(), redriven, "redrive");
      redriven.clear();
      redriveTo.clear();
    }
    touched.clear();
  }

  private static Long[] seqs(List<HeldRow> rows) {
    Long[] out = new Long[rows.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = rows.get(i).seq();
    }
    return out;
  }

  private static Integer[] states(List<HeldRow> rows) {
    Integer[] out = new Integer[rows.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = rows.get(i).state();
    }
    return out;
  }

  private static void check(int changed, List<HeldRow> rows, String what) throws SQLException {
    if (changed != rows.size()) {
      throw new SQLException(
          "guarded " + what + " changed " + changed + " of " + rows.size() + " locked rows");
    }
  }
}
