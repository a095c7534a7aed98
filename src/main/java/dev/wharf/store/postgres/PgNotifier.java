package dev.wharf.store.postgres;

import dev.wharf.store.VisibleElsewhere;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Hears what other nodes commit. One connection LISTENs on {@value #VISIBLE} (a queue got visible
 * messages, with how many: its waiters here wake for as many), {@value #LATER} (a queue got
 * messages visible at a later time, the earliest given) and {@value #QUEUES} (queue settings
 * changed); payloads carry the schema and the sending node so a node ignores its own commits and
 * other schemas on the same database.
 *
 * <p>Notifications can be lost (the connection drops, or it is down while others commit), so once
 * a second the same thread also polls: every queue with a message visible now is reported (a
 * waiter that finds it taken parks again), and a changed settings version is reported. After a
 * reconnect it polls at once.
 */
final class PgNotifier implements AutoCloseable {
  static final String VISIBLE = "wharf_visible";
  static final String LATER = "wharf_later";
  static final String QUEUES = "wharf_queues";
  private static final Logger LOG = Logger.getLogger(PgNotifier.class.getName());
  static final long POLL_MS = 1000;

  private final Supplier<Connection> connect;
  private final String prefix;
  private final String schemaPrefix;
  /** How this node's own counted {@value #VISIBLE} payloads begin. */
  private final String countedPrefix;
  private final long pollMs;
  private final Thread thread;
  private final Runnable polled;
  private final Consumer<Throwable> failed;
  /** How long the database may take to answer ({@link PgStall}). */
  private final int stallMillis;
  private final PgWatchdog watchdog = new PgWatchdog("wharf-pg-listener-watchdog");
  private volatile boolean running = true;
  private volatile VisibleElsewhere onVisible = (q, n, later) -> {};
  private volatile Runnable onQueues = () -> {};
  private volatile Connection conn;
  private volatile long queuesVersion = -1;

  /**
   * @param prefix the payload prefix of this node's own notifications ({@code schema|node|})
   * @param schemaPrefix the payload prefix every node of this schema uses ({@code schema|})
   */
  PgNotifier(Supplier<Connection> connect, String prefix, String schemaPrefix, long pollMs) {
    this(connect, prefix, schemaPrefix, pollMs, () -> {}, e -> {},
        (int) PostgresSettings.DEFAULT_STALL_TIMEOUT.toMillis());
  }

  /**
   * @param polled told after each poll that worked: the database answers (see PgHealth)
   * @param failed told why the listening connection failed, each time it does (a poll the
   *     database did not answer in time says it stalled)
   * @param stallMillis the stall timeout, which also bounds the wait for a notification's rest
   */
  PgNotifier(Supplier<Connection> connect, String prefix, String schemaPrefix, long pollMs,
      Runnable polled, Consumer<Throwable> failed, int stallMillis) {
    this.connect = connect;
    this.stallMillis = stallMillis;
    this.polled = polled;
    this.failed = failed;
    this.pollMs = pollMs;
    this.prefix = prefix;
    this.schemaPrefix = schemaPrefix;
    this.countedPrefix = prefix.substring(0, prefix.length() - 1) + COUNT_MARK;
    this.thread = Thread.ofPlatform().name("wharf-pg-listener").daemon().unstarted(this::loop);
  }

  void start(long initialQueuesVersion) {
    queuesVersion = initialQueuesVersion;
    thread.start();
  }

  void onVisible(VisibleElsewhere listener) {
    onVisible = listener;
  }

  void onQueues(Runnable listener) {
    onQueues = listener;
    // A change between the caller's first load and now would be missed: the next poll reloads.
    queuesVersion = -1;
  }

  /**
   * Connections lost in a row, and the wait before the next try. Both start over only once a
   * poll has worked: a connection that LISTENs and then fails at once (its schema dropped, say)
   * counts as down, so it is neither logged in full nor retried five times a second.
   */
  private int failedInARow;
  private long backoff = 100;

  private void loop() {
    // While PostgreSQL is down every retry fails alike: the first is logged in full, then a line
    // a minute.
    long loggedAt = 0;
    while (running) {
      try {
        conn = connect.get();
        try (Statement s = conn.createStatement()) {
          s.execute("LISTEN " + VISIBLE);
          s.execute("LISTEN " + LATER);
          s.execute("LISTEN " + QUEUES);
        }
        listen(conn.unwrap(PGConnection.class));
      } catch (SQLException | RuntimeException e) {
        if (running) {
          failed.accept(e);
        }
        long now = System.nanoTime();
        if (running && failedInARow++ == 0) {
          LOG.log(Level.WARNING, "listening connection lost; reconnecting", e);
          loggedAt = now;
        } else if (running && now - loggedAt >= 60_000_000_000L) {
          LOG.warning("listening connection still down (" + failedInARow + " tries): " + e);
          loggedAt = now;
        }
      } finally {
        closeQuietly();
      }
      if (running) {
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException e) {
          break;
        }
        backoff = Math.min(backoff * 2, 1000);
      }
    }
  }

  private void listen(PGConnection pg) throws SQLException {
    // A fresh connection may have missed notifications: poll at once.
    long nextPoll = 0;
    while (running) {
      long wait = nextPoll - System.currentTimeMillis();
      if (wait <= 0) {
        poll();
        polled.run();
        backoff = 100;
        failedInARow = 0;
        nextPoll = System.currentTimeMillis() + pollMs;
        wait = pollMs;
      }
      // The driver bounds only the wait for a message's first byte, by this wait, and reads the
      // rest with no bound at all: the watchdog ends a call that outlives it by a stall timeout.
      // Waits no longer than that timeout keep the watchdog's bound short.
      int bound = (int) Math.min(wait, stallMillis);
      PGNotification[] got =
          watchdog.call(conn, bound + (long) stallMillis, () -> pg.getNotifications(bound));
      if (got != null) {
        for (PGNotification n : got) {
          dispatch(n);
        }
      }
    }
  }

  /**
   * A {@value #VISIBLE} payload: {@code schema|node:count|queue}. The count rides in the node's
   * field because nodes of earlier versions take everything after that field as the queue's name
   * and the field itself only to skip their own commits: they still wake for the right queue.
   *
   * @param prefix the sender's {@code schema|node|}
   */
  static String visiblePayload(String prefix, int count, String queue) {
    return prefix.substring(0, prefix.length() - 1) + COUNT_MARK + count + '|' + queue;
  }

  /** Between the node and the count in a {@value #VISIBLE} payload; node ids are hex. */
  private static final char COUNT_MARK = ':';

  private void dispatch(PGNotification n) {
    String payload = n.getParameter();
    if (payload == null || !payload.startsWith(schemaPrefix) || payload.startsWith(prefix)
        || payload.startsWith(countedPrefix)) {
      return;
    }
    try {
      // After the schema: the sending node (for VISIBLE with the count after it), then for LATER
      // the time, then the queue. Queue names hold no bar; a VISIBLE without a count is from a
      // node that did not count.
      int bar = payload.indexOf('|', schemaPrefix.length());
      if (bar < 0) {
        return;
      }
      if (VISIBLE.equals(n.getName())) {
        int mark = payload.lastIndexOf(COUNT_MARK, bar);
        int count = mark < schemaPrefix.length() ? VisibleElsewhere.UNKNOWN
            : Integer.parseInt(payload, mark + 1, bar, 10);
        onVisible.visible(payload.substring(bar + 1), count, null);
      } else if (LATER.equals(n.getName())) {
        int numberEnd = payload.indexOf('|', bar + 1);
        if (numberEnd > 0) {
          long at = Long.parseLong(payload, bar + 1, numberEnd, 10);
          onVisible.visible(payload.substring(numberEnd + 1), 0, Instant.ofEpochMilli(at));
        }
      } else if (QUEUES.equals(n.getName())) {
        onQueues.run();
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "notification listener failed", e);
    }
  }

  private void poll() throws SQLException {
    List<String> ready = new ArrayList<>();
    long version;
    // Queues with ready messages by the counters, then one index probe each for one visible now
    // (delayed messages are the core's own timers' business).
    try (PreparedStatement ps =
        conn.prepareStatement(
            "SELECT c.queue FROM (SELECT queue FROM counters WHERE state = 0"
                + " GROUP BY queue HAVING sum(n) > 0) AS c WHERE EXISTS (SELECT 1 FROM messages m"
                + " WHERE m.queue = c.queue AND m.state = 0 AND m.visible_at <= ?)")) {
      ps.setLong(1, System.currentTimeMillis());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ready.add(rs.getString(1));
        }
      }
    }
    try (PreparedStatement ps =
            conn.prepareStatement("SELECT version FROM queues_changed WHERE id = 1");
        ResultSet rs = ps.executeQuery()) {
      version = rs.next() ? rs.getLong(1) : 0;
    }
    try {
      if (version != queuesVersion) {
        queuesVersion = version;
        onQueues.run();
      }
      for (String q : ready) {
        onVisible.visible(q, VisibleElsewhere.UNKNOWN, null);
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "notification listener failed", e);
    }
  }

  private void closeQuietly() {
    Connection c = conn;
    conn = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // reconnecting or closing anyway
      }
    }
  }

  /** Test hook: drops the listening connection as a network failure would. */
  void dropConnection() {
    Connection c = conn;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // that is the point
      }
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    dropConnection();
    try {
      thread.join(3000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    watchdog.close();
  }
}
