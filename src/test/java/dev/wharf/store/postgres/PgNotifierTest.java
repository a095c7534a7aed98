package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The listening connection while the database answers but its schema is gone. */
class PgNotifierTest {
  private final Logger log = Logger.getLogger(PgNotifier.class.getName());
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          records.add(r);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private PostgresSettings settings;

  @BeforeEach
  void start() {
    // An empty schema: LISTEN works there, the first poll does not (no tables).
    settings = TestDatabase.freshSchema(1);
    log.addHandler(capture);
  }

  @AfterEach
  void stop() {
    log.removeHandler(capture);
    TestDatabase.dropSchema(TestDatabase.schemaOf(settings));
  }

  /**
   * Every reconnect LISTENs and then fails at its first poll. That is one outage: logged in full
   * once, and retried with a growing wait, not five times a second with a stack trace each.
   */
  @Test
  void aConnectionThatListensAndThenFailsCountsAsDown() throws Exception {
    AtomicInteger connects = new AtomicInteger();
    try (PgNotifier notifier =
        new PgNotifier(
            () -> {
              connects.incrementAndGet();
              try {
                return DriverManager.getConnection(settings.url());
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            },
            "s|n|",
            "s|",
            1000)) {
      notifier.start(0);
      // Waits of 100, 200 and 400 ms come before the fourth try.
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (connects.get() < 4 && System.nanoTime() < deadline) {
        LockSupport.parkNanos(10_000_000);
      }
      assertThat(connects.get()).isGreaterThanOrEqualTo(4);
    }
    List<LogRecord> traced = records.stream().filter(r -> r.getThrown() != null).toList();
    assertThat(traced).hasSize(1);
    assertThat(traced.get(0).getThrown().getMessage()).contains("counters");
  }
}
