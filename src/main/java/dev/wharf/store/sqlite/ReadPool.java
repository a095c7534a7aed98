package dev.wharf.store.sqlite;

import dev.wharf.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** A few read-only connections: WAL lets readers run beside the writer without blocking it. */
final class ReadPool implements AutoCloseable {
  interface Read<T> {
    T apply(Connection c) throws SQLException;
  }

  private final BlockingQueue<Connection> idle;
  private volatile boolean closed;

  ReadPool(String url, int size) throws SQLException {
    idle = new ArrayBlockingQueue<>(size);
    for (int i = 0; i < size; i++) {
      Connection c = SqliteConnections.open(url);
      try (var s = c.createStatement()) {
        s.execute("PRAGMA query_only = ON");
        s.execute("PRAGMA busy_timeout = 5000");
      }
      idle.add(c);
    }
  }

  <T> T read(Read<T> read) {
    Connection c = null;
    try {
      // Poll rather than block forever, so a read racing close() fails instead of hanging.
      while (c == null) {
        if (closed) {
          throw new StoreException("store is closed");
        }
        c = idle.poll(100, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted waiting for a read connection");
    }
    try {
      return read.apply(c);
    } catch (SQLException e) {
      throw new StoreException("read failed: " + e.getMessage(), e);
    } finally {
      idle.add(c);
      if (closed) {
        close();
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    Connection c;
    while ((c = idle.poll()) != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
  }
}
