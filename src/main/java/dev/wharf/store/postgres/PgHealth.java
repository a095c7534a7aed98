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
 *
 * <p>A database that stalls (a wait for its answer ran out: {@link PgStall}) is known apart. The
 * listener's every try then waits a login's bound before it fails (the stall timeout in whole
 * seconds, rounded up), so that knowledge lasts that long and 2 s more ({@link #stallFreshFor}),
 * not to lapse between two tries; and while it
 * holds, writers do not try a new connection either ({@link #stalled}), as its login would only
 * wait as long. A session the server ended (an administrator, a restart) does not stop them.
 */
final class PgHealth {
  /** The listener tries to connect at least once a second while the database is away. */
  static final long FRESH_NANOS = 3_000_000_000L;

  private record Away(String why, long sinceNanos, boolean stall) {}

  private final LongSupplier nanos;
  private final long stallFreshNanos;
  private volatile Away away;

  PgHealth() {
    this(System::nanoTime);
  }

  PgHealth(LongSupplier nanos) {
    this(nanos, FRESH_NANOS);
  }

  PgHealth(LongSupplier nanos, long stallFreshNanos) {
    this.nanos = nanos;
    this.stallFreshNanos = stallFreshNanos;
  }

  /**
   * How long knowledge of a stall lasts: longer than one of the listener's tries, a login the
   * driver bounds in whole seconds, and its pause of a second at most before the next.
   */
  static long stallFreshFor(PostgresSettings s) {
    return Math.max(FRESH_NANOS, s.stallTimeoutSeconds() * 1_000_000_000L + 2_000_000_000L);
  }

  /** Something reached the database: reads go to it again. */
  void reached() {
    if (away != null) {
      away = null;
    }
  }

  /**
   * A listening connection's failure, when it says the database stalled (a poll not answered in
   * time). Others are told by the next connection that fails; and a session the server ended (a
   * restart, an administrator) must not keep the writers from connecting again at once.
   */
  void listenerFailed(Throwable failure) {
    if (PgStall.timedOut(failure)) {
      failed(failure);
    }
  }

  /** Records the failure when it says the database cannot be reached; returns whether it does. */
  boolean failed(Throwable failure) {
    SQLException unreachable = unreachableCause(failure);
    if (unreachable == null) {
      return false;
    }
    boolean stall = PgStall.timedOut(failure);
    // The driver words a read that timed out as any I/O error: say what it was.
    String why = stall ? "no answer within the stall timeout"
        : StoreException.firstLine(unreachable.getMessage());
    away = new Away(why, nanos.getAsLong(), stall);
    return true;
  }

  /** Why the database is known unreachable now, or null when it is not known to be. */
  String unreachable() {
    Away a = fresh();
    return a == null ? null : a.why();
  }

  /** Why the database is known to have stalled now, or null when it is not known to. */
  String stalled() {
    Away a = fresh();
    return a == null || !a.stall() ? null : a.why();
  }

  private Away fresh() {
    Away a = away;
    if (a == null
        || nanos.getAsLong() - a.sinceNanos() > (a.stall() ? stallFreshNanos : FRESH_NANOS)) {
      return null;
    }
    return a;
  }

  /**
   * The failure, or one of its causes, that says no session could be had or kept: connection
   * errors (class 08, which includes a read or a login the database did not answer within the
   * stall timeout: see {@link PgStall}) and a server shutting down or starting (57P01-57P03). Not
   * an error a reachable server answers (too many connections, a bad password, a missing table):
   * reads still go to a server that answers, since some of them may work.
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
