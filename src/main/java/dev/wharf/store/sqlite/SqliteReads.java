package dev.wharf.store.sqlite;

import dev.wharf.store.BrowseRequest;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import dev.wharf.store.QueueCounts;
import dev.wharf.store.jdbc.MessageRows;
import dev.wharf.store.jdbc.VisibleTimes;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the store reads of messages on the readers, beside the writer: an operator's views of
 * messages one by one, a queue's counts and its ready message's age, and the times delayed
 * messages come due. Rows of leases held in memory read as ready, so the views of single messages
 * have them written first.
 */
final class SqliteReads {
  private final ReadPool reads;
  private final IdLookup ids;
  private final Counters counters;
  private final MemoryLeases memoryLeases;
  private final GroupCommitWriter writer;

  SqliteReads(
      ReadPool reads,
      IdLookup ids,
      Counters counters,
      MemoryLeases memoryLeases,
      GroupCommitWriter writer) {
    this.reads = reads;
    this.ids = ids;
    this.counters = counters;
    this.memoryLeases = memoryLeases;
    this.writer = writer;
  }

  Optional<Message> messagesGet(String queue, String id) {
    writeBackBeforeReading(queue);
    return reads.read(c -> {
      long seq = ids.seq(c, queue, id);
      if (seq < 0) {
        return Optional.<Message>empty();
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT " + MessageRows.COLUMNS + " FROM messages WHERE seq = ? AND queue = ?")) {
        ps.setLong(1, seq);
        ps.setString(2, queue);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(MessageRows.message(rs)) : Optional.<Message>empty();
        }
      }
    });
  }

  List<Message> messagesBrowse(BrowseRequest r) {
    writeBackBeforeReading(r.queue());
    String from = walkInSeqOrder(r) ? "messages NOT INDEXED" : "messages";
    return reads.read(c -> MessageRows.browse(c, r, from));
  }

  /**
   * Whether a page of ready messages is read by walking the table from the cursor in seq order
   * rather than through the ready index. The index holds a queue's ready rows in delivery order,
   * so a page in seq order sorted every one of them: 0.37-0.71 s a page of a queue of 1,000,000.
   * The walk reads about (all rows / the queue's ready rows) rows for each it keeps, so it is
   * taken while that stays under 64 to one; below that the queue is small next to the table and
   * sorting its ready rows is the cheaper read.
   */
  private boolean walkInSeqOrder(BrowseRequest r) {
    if (r.state() != MessageState.READY || Boolean.TRUE.equals(r.delayed())
        || !counters.counted()) {
      return false;
    }
    long ready = counters.get(r.queue(), MessageState.READY.code());
    return ready > 0 && ready * 64 >= counters.total();
  }

  /**
   * Rows of leases held in memory read as ready: a read that shows messages one by one first has
   * the queue's leases written. It costs a commit, which such reads (an operator's) can spare.
   */
  private void writeBackBeforeReading(String queue) {
    if (memoryLeases.heldIn(queue) > 0) {
      writer.submit(tx -> {
        tx.leases.writeBackQueue(tx, queue);
        return null;
      });
    }
  }

  QueueCounts queueCounts(String queue, Instant now) {
    counters.awaitCounted();
    long[] states = counters.states(queue);
    long readyTotal = states[MessageState.READY.code()];
    long leased = states[MessageState.LEASED.code()];
    long expired = states[MessageState.EXPIRED.code()];
    if (readyTotal == 0) {
      return new QueueCounts(0, 0, leased, expired, null);
    }
    long at = now.toEpochMilli();
    return reads.read(c -> {
      long delayed;
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT count(*) FROM messages INDEXED BY m_ready"
                  + " WHERE queue = ? AND state = 0 AND visible_at > ?")) {
        ps.setString(1, queue);
        ps.setLong(2, at);
        try (ResultSet rs = ps.executeQuery()) {
          delayed = rs.next() ? rs.getLong(1) : 0;
        }
      }
      Instant readySince = null;
      // The rows at or before the claims' cursor are leased in memory (a moment's view: enough
      // for an age).
      MemoryLeases.Cursor after = memoryLeases.cursor(queue);
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT visible_at FROM messages INDEXED BY m_ready"
                  + " WHERE queue = ?1 AND state = 0 AND visible_at <= ?2"
                  + " AND (visible_at, seq) > (?3, ?4)"
                  + " ORDER BY visible_at, seq LIMIT 1")) {
        ps.setString(1, queue);
        ps.setLong(2, at);
        ps.setLong(3, after == null ? Long.MIN_VALUE : after.visibleAt());
        ps.setLong(4, after == null ? Long.MIN_VALUE : after.seq());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            readySince = Instant.ofEpochMilli(rs.getLong(1));
          }
        }
      }
      // The delayed count is read from the rows a moment after the counters: claims and
      // deletions since may leave it above the ready total, which it is a part of.
      delayed = Math.min(delayed, readyTotal);
      return new QueueCounts(readyTotal - delayed, delayed, leased, expired, readySince);
    });
  }

  Optional<Instant> messagesNextVisible(String queue, Instant now) {
    return reads.read(c -> VisibleTimes.next(c, READY_ROWS, queue, now));
  }

  int messagesVisibleBetween(String queue, Instant after, Instant upTo, int limit) {
    return reads.read(c -> VisibleTimes.countBetween(c, READY_ROWS, queue, after, upTo, limit));
  }

  /** Where the reads of delayed messages' times look: the index that orders ready rows. */
  private static final String READY_ROWS = "messages INDEXED BY m_ready";
}
