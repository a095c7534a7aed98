package dev.wharf.store.postgres;

import dev.wharf.store.StoreException;
import java.sql.SQLException;
import java.util.function.LongSupplier;

/**
 * Whether this node knows PostgreSQL to be unreachable now, learnt from what its connections
 * already do: every new connection (the listener makes one at least once a second while the
 * database is away, and the writer lanes one per batch) and every pooled read. While it is known
 * away a read fails at once instead of waiting the pool's timeout for a connection, so that
 * readiness probes and clients are answered at once rather than piling up.
 *
 * <p>What is known goes stale: a failure older than {@link #FRESH_NANOS} that nothing confirmed
 * since no longer counts, so reads try the database themselves again even if the listener
 * were stuck.
 */
final class PgHealth {
  /** The listener tries to connect at least once a second while the database is away. */
  static final long FRESH_NANOS = 3_000_000_000L;

  private record Away(String why, long sinceNanos) {}

  private final LongSupplier nanos;
  private volatile Away away;

  PgHealth() {
    this(System::nanoTime);
  }

  PgHealth(LongSupplier nanos) {
    this.nanos = nanos;
  }

  /** Something reached the database: reads go to it again. */
  void reached() {
    if (away != null) {
      away = null;
    }
  }

  /** Records the failure when it says the database cannot be reached; returns whether it does. */
  boolean failed(Throwable failure) {
    SQLException unreachable = unreachableCause(failure);
    if (unreachable == null) {
      return false;
    }
    away = new Away(StoreException.firstLine(unreachable.getMessage()), nanos.getAsLong());
    return true;
  }

  /** Why the database is known unreachable now, or null when it is not known to be. */
  String unreachable() {
    Away a = away;
    if (a == null || nanos.getAsLong() - a.sinceNanos() > FRESH_NANOS) {
      return null;
    }
    return a.why();
  }

  /**
   * The failure, or one of its causes, that says no session could be had or kept: connection
   * errors (class 08) and a server shutting down or starting (57P01-57P03). Not an error a
   * reachable server answers (too many connections, a bad password, a missing table): reads
   * still go to a server that answers, since some of them may work.
   */
  static SQLException unreachableCause(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e && e.getSQLState() != null) {
        String state = e.getSQLState();
        if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
            || state.equals("57P03")) {
          return e;
        }
      }
    }
    return null;
  }
}
