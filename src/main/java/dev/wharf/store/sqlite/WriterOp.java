package dev.wharf.store.sqlite;

import java.sql.SQLException;

/** An operation the writer ({@link GroupCommitWriter}) runs in a batch's transaction. */
interface WriterOp<T> {
  T apply(WriterTx tx) throws SQLException;
}
