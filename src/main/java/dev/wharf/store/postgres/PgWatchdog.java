package dev.wharf.store.postgres;

import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A bound on a driver call whose reads the connection's read timeout ({@link PgStall}) does not
 * all bound: the driver's wait for notifications reads a message's first byte under the wait's
 * own timeout, then the rest of the message with none at all, so a database (or a proxy) that
 * stalls in the middle of a notification would hold the listener for ever. Past the bound the
 * connection is aborted under the call, which then fails as a read that timed out does.
 */
final class PgWatchdog implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PgWatchdog.class.getName());

  interface Call<T> {
    T run() throws SQLException;
  }

  private final ScheduledThreadPoolExecutor timer;

  PgWatchdog(String threadName) {
    timer = new ScheduledThreadPoolExecutor(
        1, r -> Thread.ofPlatform().name(threadName).daemon().unstarted(r));
    timer.setRemoveOnCancelPolicy(true);
  }

  /** Runs {@code call} on {@code c}; past {@code millis} the connection is aborted under it. */
  <T> T call(Connection c, long millis, Call<T> call) throws SQLException {
    AtomicBoolean fired = new AtomicBoolean();
    ScheduledFuture<?> abort = timer.schedule(() -> {
      fired.set(true);
      abort(c);
    }, millis, TimeUnit.MILLISECONDS);
    try {
      return call.run();
    } catch (SQLException e) {
      if (fired.get()) {
        SQLException stalled = new SQLException(
            "PostgreSQL did not finish a message within " + millis + " ms", "08006",
            new SocketTimeoutException("aborted after " + millis + " ms"));
        stalled.addSuppressed(e);
        throw stalled;
      }
      throw e;
    } finally {
      abort.cancel(false);
    }
  }

  private static void abort(Connection c) {
    try {
      // Closes the socket without a word to the server, which would not read it anyway.
      c.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.FINE, "aborting a stalled connection failed", e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
