package dev.wharf.store.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The seqs the writer has reserved, a block at a time, in the row {@code seq_reserved}: a start
 * goes on past every seq ever handed out, even when the newest messages are gone, since message
 * ids carry their seq and are never given twice. Used on the writer's thread only.
 */
final class SeqBlocks {
  /** Seqs reserved at a time: one row written per this many messages, and skipped at a start. */
  static final long SEQ_BLOCK = 1 << 20;

  /** The highest seq a committed transaction reserved. */
  private long seqsReservedUpTo;

  /** @param nextSeq the first seq the writer hands out: see {@link #firstSeq} */
  SeqBlocks(long nextSeq) {
    this.seqsReservedUpTo = nextSeq - 1;
  }

  /**
   * Writes a new block's bound in the open transaction when it hands out seqs beyond the last one,
   * so the two are durable together. Returns the bound in force once the transaction commits.
   */
  long reserveSeqs(WriterTx tx) throws SQLException {
    long highest = tx.highestSeq();
    if (highest <= seqsReservedUpTo) {
      return seqsReservedUpTo;
    }
    long upTo = highest + SEQ_BLOCK;
    PreparedStatement ps = tx.prepare("UPDATE seq_reserved SET up_to = ?");
    ps.setLong(1, upTo);
    if (ps.executeUpdate() != 1) {
      throw new SQLException("seq_reserved holds no row");
    }
    return upTo;
  }

  /** The transaction that {@link #reserveSeqs} returned {@code reserved} for committed. */
  void committed(long reserved) {
    seqsReservedUpTo = reserved;
  }

  /**
   * The first seq a writer opening this database may hand out: past every row and every block
   * reserved before.
   */
  static long firstSeq(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT max(coalesce((SELECT max(seq) FROM messages), 0),"
                    + " coalesce((SELECT max(up_to) FROM seq_reserved), 0)) + 1")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
