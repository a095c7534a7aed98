package dev.wharf.store.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.logging.Logger;

/**
 * Settings that make the server end a session its node no longer serves, so that the session's
 * locks go with it. Both came with PostgreSQL 14; an older server (or one that cannot check for a
 * client gone on its platform) runs without them, as before, and the start says so in the log.
 * Every session also plans each statement for its own arguments where the server can ({@link
 * #CUSTOM_PLANS}, PostgreSQL 12 and later).
 *
 * <p>{@code client_connection_check_interval}, on every session: a node closes a connection whose
 * statement was not answered within the stall timeout ({@link PgStall}), but the server would go
 * on running that statement, and hold its locks (rows a batch changed, a key's advisory lock),
 * until it next writes to the client, which for a statement waiting on a lock may be never. With
 * it the server looks every {@value #CHECK_CLIENT_SECONDS} s while a statement runs whether the
 * client is still there, and ends the statement (rolled back) and the session when it is not.
 *
 * <p>{@code idle_in_transaction_session_timeout}, on every session, whatever the server's version
 * (it came with 9.6, before the identity columns the schema needs): a node that is frozen
 * (stopped with SIGSTOP, or hung) keeps its sessions, as its kernel still answers keepalives, and
 * a session frozen inside a transaction keeps that transaction's locks: the rows a writer batch
 * changed or claimed, a key's advisory lock, a queue's row. Other nodes' writes of those rows
 * would wait for as long as the node stays frozen. The server ends such a session once it has
 * waited {@link #TRANSACTION_IDLE_MILLIS} for the node's next statement, which rolls the
 * transaction back and frees its locks; the node's next statement on it fails ({@link
 * #endedInTransaction}).
 *
 * <p>{@code idle_session_timeout}, on the reaper lock's session only ({@link PgReaperLock}): a
 * frozen holder keeps the reaper lock between its passes too, so that no node would end any
 * lease. The holder's session is never idle for more than a pass's pause (100 ms) on a live node,
 * so one idle for much longer belongs to a node that stopped acting: the server ends it, and
 * another node takes the lock at its next pass.
 */
final class PgSession {
  private static final Logger LOG = Logger.getLogger(PgSession.class.getName());

  /** How often the server checks that the client of a running statement is still there. */
  static final int CHECK_CLIENT_SECONDS = 2;

  /**
   * Every statement planned for its own arguments. A statement a session runs often is otherwise
   * planned once for any arguments (a generic plan) after its first five runs, on the statistics
   * of that moment, and kept until the table's statistics change: on a fresh database, or after a
   * burst of publishes before autovacuum analysed the table, that plan was made for a table
   * believed nearly empty. A claim's lease then read every ready row for each row it leased (a
   * sequential scan inside a nested loop: 250 ms for 100 rows among 9,800, against 6 ms by the
   * primary key), and consumers took ~1,000 messages a second instead of ~10,000. Planning each
   * run costs the server some CPU; the consumption figures in docs/postgres.md include it.
   */
  private static final String CUSTOM_PLANS =
      "set_config('plan_cache_mode', 'force_custom_plan', false)";

  private static final String CHECK_CLIENT =
      "set_config('client_connection_check_interval', '" + CHECK_CLIENT_SECONDS + "s', false)";

  /**
   * How long the server waits, inside a transaction, for a node's next statement before it ends
   * the session. No Wharf transaction waits on anything but its own statements: between two of
   * them (a writer batch's, a purge's, a reaper pass's, a migration's) a node only works on what
   * it already holds, for well under a millisecond, and it reads each answer as it comes. A
   * statement that runs, however long (a purge of millions of rows, a migration, a wait on
   * another session's lock), is not idle. A pause of seconds is a node that stopped (frozen,
   * swapping, a collection gone wrong); its write fails, nothing of it stored, when it runs
   * again. Under the default stall timeout (10 s), so that a write of another node waiting on
   * the frozen one's locks goes through once they are freed rather than fail as a stall of the
   * database. Not a setting: no deployment has a reason to let a frozen node hold locks longer.
   */
  static final long TRANSACTION_IDLE_MILLIS = 5_000;

  /** The server ended the session after it waited too long inside a transaction (25P03). */
  private static final String IDLE_IN_TRANSACTION_ENDED = "25P03";

  /**
   * What the server can do.
   *
   * @param checksClient whether it takes {@code client_connection_check_interval}
   * @param endsIdle whether it knows {@code idle_session_timeout}
   * @param customPlans whether it knows {@code plan_cache_mode} (PostgreSQL 12 and later)
   */
  record Features(boolean checksClient, boolean endsIdle, boolean customPlans) {
    /** What is assumed before the server was asked: nothing it might not know. */
    static final Features UNKNOWN = new Features(false, false, false);

    /**
     * The query every new session runs first: the keepalive settings and {@code
     * synchronous_commit} ({@link PgKeepAlive#SESSION_SETTINGS_QUERY}, whose columns keep their
     * places), the bound on a wait inside a transaction ({@link #TRANSACTION_IDLE_MILLIS} but for
     * tests), and the client check when the server takes it.
     */
    String settingsQuery(long transactionIdleMillis) {
      String query = PgKeepAlive.SESSION_SETTINGS_QUERY
          + ", set_config('idle_in_transaction_session_timeout', '" + transactionIdleMillis
          + "', false)";
      if (customPlans) {
        query += ", " + CUSTOM_PLANS;
      }
      return checksClient ? query + ", " + CHECK_CLIENT : query;
    }
  }

  private PgSession() {}

  /**
   * Asks the server what it can do, on a session that then checks for its client as every later
   * one will. Fails only as the connection does: a setting refused is a feature missing.
   */
  static Features probe(Connection c) throws SQLException {
    // Looked up before it is tried: a server that does not know the setting would log an ERROR
    // for the attempt, which an operator of an older server would read as a fault.
    boolean checksClient = known(c, "client_connection_check_interval");
    String why = "before version 14";
    if (checksClient) {
      try (Statement s = c.createStatement()) {
        s.execute("SELECT " + CHECK_CLIENT);
      } catch (SQLException e) {
        if (!refused(e)) {
          throw e;
        }
        why = e.getMessage();
        checksClient = false;
      }
    }
    if (!checksClient) {
      LOG.info("PostgreSQL does not check for clients gone while a statement runs (" + why
          + "): a statement whose connection a stall closed may run on, and hold its locks,"
          + " until it ends (PostgreSQL 14 and later on Linux do check)");
    }
    boolean endsIdle = known(c, "idle_session_timeout");
    if (!endsIdle) {
      LOG.info("PostgreSQL has no idle_session_timeout (before version 14): a node that is"
          + " frozen while it runs the reapers keeps them until its session ends");
    }
    boolean customPlans = known(c, "plan_cache_mode");
    if (!customPlans) {
      LOG.info("PostgreSQL has no plan_cache_mode (before version 12): a statement may keep a"
          + " plan made while the messages table was nearly empty until autovacuum analyses it");
    }
    return new Features(checksClient, endsIdle, customPlans);
  }

  /** Whether the server has a setting of this name. */
  private static boolean known(Connection c, String setting) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(
            "SELECT count(*) FROM pg_settings WHERE name = '" + setting + "'")) {
      return rs.next() && rs.getInt(1) > 0;
    }
  }

  /** A setting the server does not know (42704) or does not take on its platform (22023). */
  private static boolean refused(SQLException e) {
    return "42704".equals(e.getSQLState()) || "22023".equals(e.getSQLState());
  }

  /**
   * Makes the server end the session once idle for {@code millis} outside a transaction; inside
   * one, every session's own bound ends it ({@link #TRANSACTION_IDLE_MILLIS}).
   */
  static void endWhenIdle(Connection c, long millis) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SELECT set_config('idle_session_timeout', '" + millis + "', false)");
    }
  }

  /**
   * Whether the failure is the server ending the session because it waited too long inside a
   * transaction: the transaction was rolled back, even when the statement that found it out was
   * its commit, so nothing of it was stored.
   */
  static boolean endedInTransaction(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e && IDLE_IN_TRANSACTION_ENDED.equals(e.getSQLState())) {
        return true;
      }
    }
    return false;
  }
}
