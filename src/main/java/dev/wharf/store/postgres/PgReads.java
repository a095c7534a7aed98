package dev.wharf.store.postgres;

import dev.wharf.store.jdbc.MessageRows;
import dev.wharf.store.jdbc.QueueRows;
import dev.wharf.store.jdbc.VisibleTimes;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.wharf.store.BrowseRequest;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import dev.wharf.store.QueueCounts;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/** Queries that change nothing, on a small pool of auto-commit connections. */
final class PgReads implements AutoCloseable {
  interface Read<T> {
    T apply(Connection c) throws SQLException;
  }

  private final HikariDataSource pool;
  /** The pool's size: a read tries at most one more connection than it holds. */
  private final int maxSize;
  private final PgHealth health;
  private final int stallMillis;

  /**
   * @param applicationName what its connections tell PostgreSQL, to tell them apart
   * @param health what the node knows of the database being reachable; reads add to it
   * @param sessionQuery what each new connection runs first ({@link PgSession.Features})
   */
  PgReads(PostgresSettings s, int size, String applicationName, PgHealth health,
      String sessionQuery) {
    this.health = health;
    this.stallMillis = (int) s.stallTimeout().toMillis();
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(s.url());
    if (s.user() != null) {
      cfg.setUsername(s.user());
    }
    if (s.password() != null) {
      cfg.setPassword(s.password());
    }
    cfg.setMaximumPoolSize(size);
    this.maxSize = size;
    cfg.setMinimumIdle(1);
    cfg.setPoolName("wharf-pg-reads");
    cfg.setAutoCommit(true);
    cfg.setReadOnly(true);
    cfg.setConnectionTimeout(5000);
    // The check of a connection idle for a while, before it is lent: a stalled database would
    // otherwise hold a read the pool's whole 5 s.
    cfg.setValidationTimeout(Math.clamp(stallMillis, 250, 4000));
    Properties keepAlive = new Properties();
    PgKeepAlive.addTo(keepAlive);
    PgStall.addTo(keepAlive, s);
    keepAlive.setProperty("ApplicationName", applicationName);
    cfg.setDataSourceProperties(keepAlive);
    cfg.setConnectionInitSql(sessionQuery);
    pool = new HikariDataSource(cfg);
  }

  /**
   * Runs a read, on another connection when the one lent turns out dead. The pool lends a
   * connection used in the last half second without checking it, so one the server ended since
   * (a restart, an administrator) would fail a read that a new one answers, as writes already
   * run again on a new connection. A read changes nothing, so running it again is safe; it is
   * not run again when no connection can be had at all, which already waited the pool's timeout.
   *
   * <p>Nor does it wait that timeout while the database is known unreachable ({@link PgHealth}):
   * it fails at once, as a write whose connection is refused does.
   *
   * <p>A read the database does not answer within the stall timeout ({@link PgStall}) fails, and
   * tells the node the database is away: it is not run again, as another connection would wait
   * as long.
   */
  <T> T read(Read<T> r) {
    return read(r, stallMillis);
  }

  private <T> T read(Read<T> r, int boundMillis) {
    for (int tries = 1; ; tries++) {
      String away = health.unreachable();
      if (away != null) {
        throw new StoreException("PostgreSQL is unreachable: " + away);
      }
      Connection c;
      try {
        c = pool.getConnection();
      } catch (SQLException e) {
        health.failed(e);
        throw new StoreException("read failed: " + e.getMessage(), e);
      }
      try {
        // The pool puts the connection's own bound back when it is returned.
        PgStall.bound(c, boundMillis);
        T result = r.apply(c);
        health.reached();
        return result;
      } catch (SQLException e) {
        if (PgStall.timedOut(e)) {
          if (boundMillis >= stallMillis) {
            // Not a readiness check's shorter wait: a busy server may take a second.
            health.failed(e);
          }
          throw new StoreException(
              "read failed: PostgreSQL did not answer within " + boundMillis + " ms", e);
        }
        if (tries > maxSize || isValid(c)) {
          throw new StoreException("read failed: " + e.getMessage(), e);
        }
      } finally {
        closeQuietly(c);
      }
    }
  }

  private static boolean isValid(Connection c) {
    try {
      return c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException ignored) {
      // The pool drops a broken connection itself; the read's own outcome is what counts.
    }
  }

  List<QueueRecord> queues() {
    return read(QueueRows::list);
  }

  Optional<QueueRecord> queue(String name) {
    return read(c -> QueueRows.get(c, name));
  }

  Optional<Message> message(String queue, String id) {
    return read(c -> {
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT " + MessageRows.COLUMNS + " FROM messages WHERE id = ? AND queue = ?")) {
        ps.setString(1, id);
        ps.setString(2, queue);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(MessageRows.message(rs)) : Optional.<Message>empty();
        }
      }
    });
  }

  List<Message> browse(BrowseRequest r) {
    return read(c -> MessageRows.browse(c, r));
  }

  /** Depth from the counters; only the delayed split and the wait of the next are index reads. */
  QueueCounts counts(String queue, Instant now) {
    return read(c -> {
      long[] byState = PgCounters.byState(c, queue);
      long readyTotal = byState[MessageState.READY.code()];
      long leased = byState[MessageState.LEASED.code()];
      long expired = byState[MessageState.EXPIRED.code()];
      if (readyTotal == 0) {
        return new QueueCounts(0, 0, leased, expired, null);
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT (SELECT count(*) FROM messages"
                  + " WHERE queue = ? AND state = 0 AND visible_at > ?),"
                  + " (SELECT visible_at FROM messages WHERE queue = ? AND state = 0"
                  + " AND visible_at <= ? ORDER BY visible_at, seq LIMIT 1)")) {
        ps.setString(1, queue);
        ps.setLong(2, now.toEpochMilli());
        ps.setString(3, queue);
        ps.setLong(4, now.toEpochMilli());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          long delayed = rs.getLong(1);
          Instant readySince = MessageRows.instant(rs, 2);
          return new QueueCounts(
              Math.max(0, readyTotal - delayed), delayed, leased, expired, readySince);
        }
      }
    });
  }

  long dead(String dlq, String origin) {
    return read(c -> PgCounters.dead(c, dlq, origin));
  }

  Optional<Instant> nextVisible(String queue, Instant now) {
    return read(c -> VisibleTimes.next(c, "messages", queue, now));
  }

  int visibleBetween(String queue, Instant after, Instant upTo, int limit) {
    return read(c -> VisibleTimes.countBetween(c, "messages", queue, after, upTo, limit));
  }

  /** Why the database is known unreachable now (see {@link PgHealth}), or null. */
  String knownUnreachable() {
    return health.unreachable();
  }

  /**
   * Every table a request needs, named so that the server must find each: {@code WHERE false}
   * reads none of their rows. One missing (renamed, dropped by hand) fails every publish or
   * receive, while a read of {@code queues_changed} alone still worked.
   */
  private static final String READY =
      "SELECT version FROM queues_changed WHERE id = 1"
          + " AND NOT EXISTS (SELECT 1 FROM queues WHERE false)"
          + " AND NOT EXISTS (SELECT 1 FROM messages WHERE false)"
          + " AND NOT EXISTS (SELECT 1 FROM counters WHERE false)"
          + " AND NOT EXISTS (SELECT 1 FROM idempotency WHERE false)";

  /**
   * Null when a read of the schema's own tables works within {@code boundMillis}, else why not. A
   * connection alone is not enough: a database dropped and made again answers, with none of the
   * tables. See {@link PgReadiness} for the bound on the whole check.
   */
  String unready(int boundMillis) {
    try {
      read(c -> {
        try (PreparedStatement ps = c.prepareStatement(READY);
            ResultSet rs = ps.executeQuery()) {
          return rs.next();
        }
      }, boundMillis);
      return null;
    } catch (StoreException e) {
      return "storage is not answering: " + StoreException.firstLine(e.getMessage());
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
