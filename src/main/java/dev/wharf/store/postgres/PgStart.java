package dev.wharf.store.postgres;

import dev.wharf.store.StoreException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a node does on the database before it opens its lanes, read pool and listener: it refuses
 * a server too old ({@link PgVersion}), learns what the server can do, migrates the schema, and
 * reads which schema it is in and the version of the queues' settings, all on one connection of
 * its own.
 */
final class PgStart {
  /**
   * @param schema the schema the tables are in
   * @param queuesVersion {@code queues_changed.version} as the start read it
   * @param features what the server can do, for every connection after
   */
  record Opened(String schema, long queuesVersion, PgSession.Features features) {}

  private PgStart() {}

  static Opened open(PgConnections connections) {
    try (Connection c = connections.connect()) {
      PgVersion.require(c);
      // Still bounded: a database that let the login through and then does not answer fails the
      // start here, before anything that may rightly take long.
      PgSession.Features features = connections.learn(c);
      // A migration of a large table may rightly take minutes, and so may another node's, which
      // this one then waits for.
      PgStall.unbounded(c);
      PgSchema.migrate(c);
      try (Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT current_schema(), (SELECT version FROM queues_changed WHERE id = 1)")) {
        rs.next();
        return new Opened(rs.getString(1), rs.getLong(2), features);
      }
    } catch (SQLException e) {
      throw new StoreException("cannot open PostgreSQL store: " + connections.describe(e), e);
    }
  }
}
