package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The listening connection when the database stalls in the middle of a notification. */
class PgListenerStallTest {
  private static final int STALL_MS = 1000;

  private PostgresSettings direct;
  private TestDatabase.Relayed relayed;

  @BeforeEach
  void start() throws Exception {
    direct = TestDatabase.freshSchema(1);
    try (Connection c = DriverManager.getConnection(direct.url())) {
      PgSchema.migrate(c);
    }
    relayed = TestDatabase.throughRelay(direct);
  }

  @AfterEach
  void stop() {
    relayed.proxy().close();
    TestDatabase.dropSchema(TestDatabase.schemaOf(direct));
  }

  /**
   * The driver reads a notification's first byte under the wait's timeout and the rest under
   * none: without a bound of its own the listener would wait for the rest for ever, and the node
   * would neither hear other nodes again nor learn that the database stalled.
   */
  @Test
  void aNotificationCutShortIsAStallNotAWaitForEver() throws Exception {
    PostgresSettings through = new PostgresSettings(relayed.url(), direct.user(),
        direct.password(), 1, Duration.ofMillis(STALL_MS));
    PgConnections connections =
        new PgConnections(through, "wharf-test-listener", new PgHealth());
    AtomicInteger polls = new AtomicInteger();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    String schema = TestDatabase.schemaOf(direct);
    // Polls once as it connects, then only waits for notifications.
    try (PgNotifier notifier = new PgNotifier(connections::connect, schema + "|me|",
        schema + "|", 120_000, polls::incrementAndGet, failures::add, STALL_MS)) {
      notifier.start(0);
      within(Duration.ofSeconds(10), () -> polls.get() > 0);

      relayed.proxy().freezeInNextReply();
      try (Connection c = DriverManager.getConnection(direct.url());
          Statement s = c.createStatement()) {
        s.execute("NOTIFY " + PgNotifier.VISIBLE + ", '" + schema + "|other:1|q'");
      }
      within(Duration.ofSeconds(15), () -> !failures.isEmpty());
      assertThat(PgStall.timedOut(failures.get(0))).as(failures.get(0).toString()).isTrue();
      relayed.proxy().thaw();
    }
  }

  private static void within(Duration bound, BooleanSupplier condition) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("within " + bound).isLessThan(deadline);
      LockSupport.parkNanos(20_000_000);
    }
  }
}
