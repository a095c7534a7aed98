package dev.wharf.store.postgres;

import dev.wharf.store.StoreException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * How a node opens its own connections (writer lanes, the listener, the reaper lock, the start's
 * migrations), each set up alike: durable commits whatever the server's default (a transaction of
 * only settles and claims, or a reaper pass, opts out for itself: {@link PgWriter.LazyCommit}),
 * keepalives on both ends ({@link PgKeepAlive}), every wait bounded by the stall timeout ({@link
 * PgStall}), and the server's own checks for a session no longer served ({@link PgSession}).
 */
final class PgConnections {
  private final PostgresSettings settings;
  private final String applicationName;
  private final PgHealth health;
  /** How long the server waits inside a transaction for this node ({@link PgSession}). */
  private final long transactionIdleMillis;
  private volatile PgSession.Features features = PgSession.Features.UNKNOWN;

  PgConnections(PostgresSettings settings, String applicationName, PgHealth health) {
    this(settings, applicationName, health, PgSession.TRANSACTION_IDLE_MILLIS);
  }

  /** Tests shorten how long a frozen node's transaction keeps its locks. */
  PgConnections(PostgresSettings settings, String applicationName, PgHealth health,
      long transactionIdleMillis) {
    this.settings = settings;
    this.applicationName = applicationName;
    this.health = health;
    this.transactionIdleMillis = transactionIdleMillis;
  }

  /**
   * Asks the server on {@code c} what it can do, for every connection after. Bounded by the
   * stall timeout as any statement: a database that let the login through and then does not
   * answer fails the start here, where nothing may rightly take long yet.
   */
  PgSession.Features learn(Connection c) throws SQLException {
    features = PgSession.probe(c);
    return features;
  }

  /** What the server was found to do; nothing it might not know before {@link #learn}. */
  PgSession.Features features() {
    return features;
  }

  /** What every new session runs first, the read pool's too ({@link PgSession.Features}). */
  String sessionQuery() {
    return features.settingsQuery(transactionIdleMillis);
  }

  /** A new connection, set up; it tells the node's health whether the database answered. */
  Connection connect() {
    Properties p = new Properties();
    if (settings.user() != null) {
      p.setProperty("user", settings.user());
    }
    if (settings.password() != null) {
      p.setProperty("password", settings.password());
    }
    p.setProperty("ApplicationName", applicationName);
    PgKeepAlive.addTo(p);
    PgStall.addTo(p, settings);
    try {
      Connection c = DriverManager.getConnection(settings.url(), p);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(sessionQuery())) {
        if (rs.next() && "off".equals(rs.getString(4))) {
          s.execute("SET synchronous_commit = on");
        }
        // The exact bound: the driver's own setting, which bounded the login, takes seconds.
        PgStall.bound(c, stallMillis());
      } catch (SQLException e) {
        closeQuietly(c);
        throw e;
      }
      health.reached();
      return c;
    } catch (SQLException e) {
      health.failed(e);
      throw new StoreException("cannot connect to PostgreSQL: " + describe(e), e);
    }
  }

  /**
   * A writer lane's or the reaper lock's new connection, refused at once while the database is
   * known to have stalled: a login then would only wait the stall timeout to fail. Connections
   * already open are still tried, and the listener keeps trying its own.
   */
  Connection connectUnlessStalled() {
    String stalled = health.stalled();
    if (stalled != null) {
      throw new StoreException("PostgreSQL is not answering: " + stalled);
    }
    return connect();
  }

  /**
   * The driver's message, or for a wait that ran out what it means: the driver reports a read's
   * timeout as an I/O error, which would not tell an operator the database stopped answering.
   */
  String describe(SQLException e) {
    if (PgStall.timedOut(e)) {
      return "PostgreSQL did not answer within " + settings.stallTimeout().toMillis()
          + " ms (storage stall_timeout): " + e.getMessage();
    }
    return e.getMessage();
  }

  int stallMillis() {
    return (int) settings.stallTimeout().toMillis();
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException ignored) {
      // Failing already: the first failure is the one reported.
    }
  }
}
