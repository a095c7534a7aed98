package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** What a writer's close does with a batch still waiting on the database. */
class PgWriterCloseTest {
  private static final long KEY = 0x5717_c105eL;

  @Test
  void aBatchWhoseConnectionTheCloseEndsIsNotRunAgainOnANewOne() throws Exception {
    PostgresSettings s = TestDatabase.freshSchema(2);
    AtomicInteger connects = new AtomicInteger();
    // As the store's own connections: the driver bounds the login (see PgStall).
    Supplier<Connection> connect = () -> {
      connects.incrementAndGet();
      Properties p = new Properties();
      PgStall.addTo(p, s);
      try {
        return DriverManager.getConnection(s.url(), p);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    };
    try (Connection holder = DriverManager.getConnection(s.url());
        Statement hs = holder.createStatement()) {
      hs.execute("SELECT pg_advisory_lock(" + KEY + ")");
      PgWriter writer = new PgWriter(connect, 1, 0, "t|n|", (tx, ops) -> List.of(), 10_000);
      // A write that waits on a lock the test holds: the database answers, in its own time.
      CompletableFuture<Object> waiting = writer.submitAsync(tx -> {
        tx.prepare("SELECT pg_advisory_xact_lock(" + KEY + ")").execute();
        return "done";
      });
      while (!waitsOnTheLock(hs)) {
        LockSupport.parkNanos(10_000_000);
      }
      writer.close();
      assertThat(waiting).isCompletedExceptionally();
      // The closed writer made no connection to run the batch again.
      assertThat(connects).hasValue(1);
    }
  }

  private static boolean waitsOnTheLock(Statement s) throws SQLException {
    // A bigint key is held as its high and low halves.
    try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
        + " AND classid::bigint = " + (KEY >>> 32) + " AND objid::bigint = " + (KEY & 0xffffffffL)
        + " AND NOT granted")) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }
}
