package dev.wharf.store.sqlite;

import dev.wharf.store.MessageIds;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Finds a message's seq from its id. An id names its row's seq ({@link MessageIds#sequenced}), so
 * this is a primary-key lookup that then compares the whole id; rows written before ids did so
 * are found through an index of their own ({@link SqliteSchema#LEGACY_ID_INDEX}) while any remain.
 */
final class IdLookup {
  private static final String BY_SEQ =
      "SELECT 1 FROM messages WHERE seq = ? AND id = ? AND queue = ?";

  /** Null when the database holds no rows with ids of the older kind. */
  private final String legacy;

  /** @param legacyUpTo from {@link SqliteSchema#legacyIdsUpTo}: 0 when no older ids remain */
  IdLookup(long legacyUpTo) {
    // The bound is part of the text: SQLite uses a partial index only for a query whose WHERE
    // implies the index's, and a bound parameter would not.
    legacy =
        legacyUpTo <= 0
            ? null
            : "SELECT seq FROM messages INDEXED BY " + SqliteSchema.LEGACY_ID_INDEX
                + " WHERE id = ? AND queue = ? AND seq <= " + legacyUpTo;
  }

  /** The seq of the message {@code id} in {@code queue}, or -1 when the queue has no such one. */
  long seq(WriterTx tx, String queue, String id) throws SQLException {
    long seq = MessageIds.seqOf(id);
    if (seq >= 0 && found(tx.prepare(BY_SEQ), seq, queue, id)) {
      return seq;
    }
    return legacy == null ? -1 : legacySeq(tx.prepare(legacy), queue, id);
  }

  /** As {@link #seq(WriterTx, String, String)}, on a reading connection. */
  long seq(Connection c, String queue, String id) throws SQLException {
    long seq = MessageIds.seqOf(id);
    if (seq >= 0) {
      try (PreparedStatement ps = c.prepareStatement(BY_SEQ)) {
        if (found(ps, seq, queue, id)) {
          return seq;
        }
      }
    }
    if (legacy == null) {
      return -1;
    }
    try (PreparedStatement ps = c.prepareStatement(legacy)) {
      return legacySeq(ps, queue, id);
    }
  }

  private static boolean found(PreparedStatement ps, long seq, String queue, String id)
      throws SQLException {
    ps.setLong(1, seq);
    ps.setString(2, id);
    ps.setString(3, queue);
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next();
    }
  }

  private static long legacySeq(PreparedStatement ps, String queue, String id)
      throws SQLException {
    ps.setString(1, id);
    ps.setString(2, queue);
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }
}
