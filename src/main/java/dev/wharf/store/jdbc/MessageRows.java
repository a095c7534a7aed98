package dev.wharf.store.jdbc;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.store.BrowseRequest;
import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import dev.wharf.store.NewMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reading message rows and encoding the columns that are not plain values, shared by the JDBC
 * backends: both keep the same columns, times as epoch milliseconds and headers as JSON text.
 */
public final class MessageRows {
  public static final String COLUMNS =
      "seq, id, queue, state, content_type, payload, headers, metadata, attempt, published_at,"
          + " visible_at, lease_until, expires_at, msg_key, original_queue, dead_reason, died_at";

  /**
   * What a claim reads of a ready row: not its queue, state or lease, which the claim already
   * knows (its own queue, ready, none). Every column read costs the driver per query and per row,
   * so the seven a plain message leaves NULL come last, after a flag that is 1 when all seven are:
   * a reader skips them for such a row, seven calls into the driver of the fourteen a row took.
   */
  public static final String READY_COLUMNS =
      "seq, id, content_type, payload, attempt, published_at, visible_at,"
          + " CASE WHEN headers IS NULL AND metadata IS NULL AND expires_at IS NULL"
          + " AND msg_key IS NULL AND original_queue IS NULL AND dead_reason IS NULL"
          + " AND died_at IS NULL THEN 1 ELSE 0 END,"
          + " headers, metadata, expires_at, msg_key, original_queue, dead_reason, died_at";

  /**
   * {@link #READY_COLUMNS} with the payload's length in the payload's place: a backend that reads
   * payloads only for the rows a claim takes picks with these (see {@link #pickReadyByLength}).
   */
  public static final String READY_COLUMNS_PAYLOAD_LENGTH =
      READY_COLUMNS.replace("payload,", "octet_length(payload),");

  /**
   * A key upsert's change of the newest ready message with the key: the newer publish's content
   * in place of its own. Its four parameters are set by {@link #setReplacedContent}; a backend
   * adds how it finds the row.
   */
  public static final String REPLACE_CONTENT =
      "UPDATE messages SET content_type = ?, payload = ?, headers = ?, metadata = ?";

  /** {@code ContentType.values()} copies the array on every call; a claim reads one per row. */
  private static final ContentType[] CONTENT_TYPES = ContentType.values();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {};

  private MessageRows() {}

  public static Message message(ResultSet rs) throws SQLException {
    return new Message(
        rs.getLong(1),
        rs.getString(2),
        rs.getString(3),
        MessageState.ofCode(rs.getInt(4)),
        CONTENT_TYPES[rs.getInt(5)],
        rs.getBytes(6),
        headers(rs.getString(7)),
        rs.getString(8),
        rs.getInt(9),
        instant(rs, 10),
        instant(rs, 11),
        instant(rs, 12),
        instant(rs, 13),
        rs.getString(14),
        rs.getString(15),
        rs.getString(16),
        instant(rs, 17));
  }

  /**
   * A row of {@code queue} read through {@link #READY_COLUMNS}, or through {@link
   * #READY_COLUMNS_PAYLOAD_LENGTH} and then without its payload.
   */
  private static Message readyMessage(ResultSet rs, String queue, boolean lengthOnly)
      throws SQLException {
    boolean plain = rs.getInt(8) == 1;
    return new Message(
        rs.getLong(1),
        rs.getString(2),
        queue,
        MessageState.READY,
        CONTENT_TYPES[rs.getInt(3)],
        lengthOnly ? null : rs.getBytes(4),
        plain ? Map.of() : headers(rs.getString(9)),
        plain ? null : rs.getString(10),
        rs.getInt(5),
        instant(rs, 6),
        instant(rs, 7),
        null,
        plain ? null : instant(rs, 11),
        plain ? null : rs.getString(12),
        plain ? null : rs.getString(13),
        plain ? null : rs.getString(14),
        plain ? null : instant(rs, 15));
  }

  public static Instant instant(ResultSet rs, int col) throws SQLException {
    long v = rs.getLong(col);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  public static Long millis(Instant t) {
    return t == null ? null : t.toEpochMilli();
  }

  public static String headers(Map<String, String> h) {
    if (h == null || h.isEmpty()) {
      return null;
    }
    try {
      return JSON.writeValueAsString(h);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Map<String, String> headers(String json) {
    if (json == null) {
      return Map.of();
    }
    try {
      return JSON.readValue(json, HEADERS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static int contentType(ContentType t) {
    return t.ordinal();
  }

  /** Sets parameters 1 to 4 of a statement that starts with {@link #REPLACE_CONTENT}. */
  public static void setReplacedContent(PreparedStatement ps, NewMessage m) throws SQLException {
    ps.setInt(1, contentType(m.contentType()));
    ps.setBytes(2, m.payload());
    ps.setString(3, headers(m.headers()));
    ps.setString(4, m.metadata());
  }

  /** One page of a queue's messages in publish order, as {@link BrowseRequest} asks. */
  public static List<Message> browse(Connection c, BrowseRequest r) throws SQLException {
    return browse(c, r, "messages");
  }

  /**
   * As {@link #browse(Connection, BrowseRequest)}, reading {@code from}: the table, or the table
   * with a backend's hint on how to walk it.
   */
  public static List<Message> browse(Connection c, BrowseRequest r, String from)
      throws SQLException {
    StringBuilder sql =
        new StringBuilder("SELECT " + COLUMNS + " FROM " + from + " WHERE queue = ? AND seq > ?");
    List<Object> args = new ArrayList<>(List.of(r.queue(), r.afterSeq()));
    if (r.state() != null) {
      sql.append(" AND state = ?");
      args.add(r.state().code());
      if (r.state() == MessageState.READY && r.delayed() != null) {
        sql.append(r.delayed() ? " AND visible_at > ?" : " AND visible_at <= ?");
        args.add(r.now().toEpochMilli());
      }
    }
    if (r.originalQueue() != null) {
      sql.append(" AND original_queue = ?");
      args.add(r.originalQueue());
    }
    sql.append(" ORDER BY seq LIMIT ?");
    args.add(r.limit());
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      for (int i = 0; i < args.size(); i++) {
        ps.setObject(i + 1, args.get(i));
      }
      List<Message> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(message(rs));
        }
      }
      return out;
    }
  }

  /**
   * Runs a claim's selection of ready rows. The statement is the backend's own (its locking and
   * index hints differ), selects {@link #READY_COLUMNS}, and has four parameters: queue, now
   * (visible by), now (not expired), max. Reading stops at the claim's byte bound.
   */
  public static List<Message> pickReady(PreparedStatement select, ClaimRequest r)
      throws SQLException {
    return pick(select, r, false);
  }

  /**
   * As {@link #pickReady}, for a statement that selects {@link #READY_COLUMNS_PAYLOAD_LENGTH}: the
   * messages come without payloads, and the byte bound counts the lengths the rows declare. The
   * driver then never holds the payloads of rows past the bound, which a backend that fetches a
   * result whole would (up to {@code max} rows of the largest body each).
   */
  public static List<Message> pickReadyByLength(PreparedStatement select, ClaimRequest r)
      throws SQLException {
    return pick(select, r, true);
  }

  private static List<Message> pick(PreparedStatement select, ClaimRequest r, boolean lengthOnly)
      throws SQLException {
    long now = r.now().toEpochMilli();
    select.setString(1, r.queue());
    select.setLong(2, now);
    select.setLong(3, now);
    select.setInt(4, r.max());
    List<Message> picked = new ArrayList<>(r.max());
    long bytes = 0;
    try (ResultSet rs = select.executeQuery()) {
      while (rs.next()) {
        Message m = readyMessage(rs, r.queue(), lengthOnly);
        bytes += (lengthOnly ? rs.getLong(4) : 0) + ClaimRequest.size(m);
        if (!r.takesNext(picked.size(), bytes)) {
          break;
        }
        picked.add(m);
      }
    }
    return picked;
  }
}
