package dev.wharf.store.sqlite;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Copies WAL frames back into the database file from its own connection and thread, so the
 * writer never pays for it. Passive checkpoints never block the writer; the WAL restarts from its
 * beginning once a checkpoint has caught up.
 */
final class Checkpointer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Checkpointer.class.getName());
  private final Connection conn;
  private final Thread thread;
  private volatile boolean running = true;

  Checkpointer(String url) throws SQLException {
    conn = DriverManager.getConnection(url);
    try (Statement s = conn.createStatement()) {
      s.execute("PRAGMA synchronous = NORMAL");
      s.execute("PRAGMA busy_timeout = 5000");
    }
    thread = Thread.ofPlatform().name("wharf-sqlite-checkpoint").daemon().start(this::loop);
  }

  private void loop() {
    while (running) {
      try {
        Thread.sleep(200);
        try (Statement s = conn.createStatement()) {
          s.execute("PRAGMA wal_checkpoint(PASSIVE)");
        }
      } catch (InterruptedException e) {
        return;
      } catch (SQLException e) {
        LOG.log(Level.WARNING, "checkpoint failed; will retry", e);
      }
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(5000);
      try (Statement s = conn.createStatement()) {
        s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      }
      conn.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SQLException e) {
      LOG.log(Level.FINE, "final checkpoint skipped", e);
    }
  }
}
