package dev.wharf.store.postgres;

import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.Executor;

/**
 * Bounds on how long a node waits for a database that stopped answering while its host still
 * acknowledges every byte: a hung server (stuck I/O, a stopped backend) or a proxy that keeps the
 * connections open and forwards nothing. Keepalives ({@link PgKeepAlive}) cannot find that, as
 * the peer's kernel answers them; only a wait that ends does.
 *
 * <p>Every connection has a read timeout of the settings' stall timeout, and a new one's login is
 * bounded by it too. A connection whose read timed out is closed by the driver, so nothing it
 * sent after that can be committed, and the next operation takes a new one. Work that may rightly
 * run long lifts the bound for its own statements only ({@link #unbounded}).
 */
final class PgStall {
  /** The driver runs the call itself; it takes an executor only because JDBC asks for one. */
  private static final Executor DIRECT = Runnable::run;

  private PgStall() {}

  /**
   * Driver properties that bound a new connection: the TCP connect, the whole login, and each
   * read during it. The driver takes whole seconds; {@link #bound} sets the exact bound after.
   */
  static void addTo(Properties p, PostgresSettings s) {
    String seconds = Integer.toString(s.stallTimeoutSeconds());
    p.setProperty("connectTimeout", seconds);
    p.setProperty("loginTimeout", seconds);
    p.setProperty("socketTimeout", seconds);
  }

  /** Reads on the connection fail after {@code millis} of silence; 0 waits as long as it takes. */
  static void bound(Connection c, int millis) throws SQLException {
    c.setNetworkTimeout(DIRECT, millis);
  }

  /** The same connection, waiting as long as its statements take. */
  static void unbounded(Connection c) throws SQLException {
    bound(c, 0);
  }

  /**
   * Whether the failure is a wait for the database that ran out: a read's timeout, or a login
   * that did not finish in time. The connection is gone then (the driver closes it), and the
   * database was not heard from: running the work again on a new one would only wait as long.
   */
  static boolean timedOut(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SocketTimeoutException) {
        return true;
      }
      if (t instanceof SQLException e && "08001".equals(e.getSQLState())
          && e.getMessage() != null && e.getMessage().contains("timed out")) {
        return true;
      }
    }
    return false;
  }
}
