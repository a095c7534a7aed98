package dev.wharf.store.sqlite;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Upkeep the writer runs on its own connection after a commit, with no transaction open;
 * {@code makingRoom} while only an operator's deletions may write ({@link
 * GroupCommitWriter#makingRoom}).
 */
interface BetweenBatches {
  void run(Connection conn, boolean makingRoom) throws SQLException;
}
