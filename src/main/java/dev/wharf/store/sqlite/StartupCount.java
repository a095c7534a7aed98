package dev.wharf.store.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.sqlite.SQLiteConnection;

/**
 * Counts the messages already on disk into the {@link Counters} without holding up the start:
 * counting takes time in proportion to the depth (here ~0.08 s per million messages from the page
 * cache, ~0.7 s after a reboot emptied it), and a restart should serve in the same time at any
 * depth.
 *
 * <p>The count reads a snapshot pinned in the constructor, which runs before the writer commits
 * anything. Everything the writer commits later reaches the counters as its own deltas, so adding
 * the snapshot's count whenever it finishes gives every message exactly once.
 */
final class StartupCount implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(StartupCount.class.getName());

  private final Connection conn;
  private Thread thread;
  private volatile boolean closing;

  /** Opens a connection and pins its snapshot: call before the writer's first commit. */
  StartupCount(String url) throws SQLException {
    conn = SqliteConnections.open(url);
    try {
      conn.setAutoCommit(false);
      // A read transaction takes its snapshot at its first read, not at BEGIN.
      try (Statement s = conn.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM queues")) {
        rs.next();
      }
    } catch (SQLException e) {
      conn.close();
      throw e;
    }
  }

  /**
   * Counts on a thread of its own and adds the result to {@code counters}, then marks them whole.
   *
   * @param gate the count waits for it (tests hold it back); null: counts at once
   */
  void startCounting(Counters counters, CountDownLatch gate) {
    thread =
        Thread.ofPlatform()
            .name("wharf-sqlite-count")
            .daemon()
            .start(() -> {
              try {
                if (gate != null) {
                  gate.await();
                }
                countInto(counters);
                counters.countedIn();
              } catch (SQLException | RuntimeException e) {
                if (!closing) {
                  LOG.log(Level.SEVERE, "counting the messages on disk failed", e);
                }
                counters.countFailed(e);
              } catch (InterruptedException e) {
                counters.countFailed(e);
              } finally {
                closeConnection();
              }
            });
  }

  /**
   * Counts every queue's messages by state from the partial indexes (covering where it matters),
   * so it never reads a payload.
   */
  private void countInto(Counters counters) throws SQLException {
    try (Statement s = conn.createStatement()) {
      String[] byState = {
        "SELECT queue, 0, count(*) FROM messages INDEXED BY m_ready WHERE state = 0 GROUP BY 1",
        "SELECT queue, 1, count(*) FROM messages INDEXED BY m_leased WHERE state = 1 GROUP BY 1",
        "SELECT queue, 2, count(*) FROM messages INDEXED BY m_expired WHERE state = 2 GROUP BY 1"
      };
      for (String sql : byState) {
        try (ResultSet rs = s.executeQuery(sql)) {
          while (rs.next()) {
            counters.addState(rs.getString(1), rs.getInt(2), rs.getLong(3));
          }
        }
      }
      try (ResultSet rs =
          s.executeQuery(
              "SELECT queue, original_queue, count(*) FROM messages INDEXED BY m_dead"
                  + " WHERE original_queue IS NOT NULL GROUP BY 1, 2")) {
        while (rs.next()) {
          counters.addDead(rs.getString(1), rs.getString(2), rs.getLong(3));
        }
      }
    }
  }

  /** Ends the read transaction (closing does too, when ending it fails) and the connection. */
  private void closeConnection() {
    try {
      conn.rollback();
    } catch (SQLException e) {
      LOG.log(Level.FINE, "ending the count's read transaction", e);
    }
    try {
      conn.close();
    } catch (SQLException e) {
      LOG.log(Level.FINE, "closing the count's connection", e);
    }
  }

  /**
   * Stops a count under way (a deep one after a reboot takes seconds, which a shutdown should not
   * wait for) and closes the connection.
   */
  @Override
  public void close() {
    if (thread == null) {
      closeConnection();
      return;
    }
    closing = true;
    thread.interrupt();
    try {
      // Ends a query under way with SQLITE_INTERRUPT.
      conn.unwrap(SQLiteConnection.class).getDatabase().interrupt();
    } catch (SQLException e) {
      LOG.log(Level.FINE, "interrupting the count", e);
    }
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
