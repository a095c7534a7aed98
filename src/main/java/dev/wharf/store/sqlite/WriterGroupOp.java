package dev.wharf.store.sqlite;

import java.sql.SQLException;
import java.util.List;

/**
 * Operations that run together: every one of a batch with the same key goes to one call, made
 * where the first of them came in the batch, and gets the result at its own position of the list
 * returned.
 */
interface WriterGroupOp<R, T> {
  List<T> apply(WriterTx tx, List<R> requests) throws SQLException;
}
