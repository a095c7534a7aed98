package dev.wharf.store.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Copies WAL frames back into the database file from its own connection and thread, so the
 * writer never pays for it. Passive checkpoints never block the writer, but under a steady stream
 * of commits they never quite catch up, and the WAL only restarts from its beginning once one has.
 * So when the WAL passes {@link #WAL_LIMIT_BYTES}, a RESTART checkpoint briefly holds the writer
 * back, copies the rest and lets the WAL start over: the WAL stays bounded, and so does the time
 * a restart after a crash spends replaying it.
 */
final class Checkpointer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Checkpointer.class.getName());
  static final long WAL_LIMIT_BYTES = 64L << 20;
  private final Connection conn;
  private final Path wal;
  private final Thread thread;
  private volatile boolean running = true;

  Checkpointer(String url, Path wal) throws SQLException {
    this.wal = wal;
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
          if (walBytes() > WAL_LIMIT_BYTES) {
            s.execute("PRAGMA wal_checkpoint(RESTART)");
          }
        }
      } catch (InterruptedException e) {
        return;
      } catch (SQLException e) {
        LOG.log(Level.WARNING, "checkpoint failed; will retry", e);
      }
    }
  }

  private long walBytes() {
    try {
      return Files.size(wal);
    } catch (IOException e) {
      return 0;
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
