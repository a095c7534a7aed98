package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The server ends what a node closed for a stall instead of running it on. */
class PgSessionTest {
  private PostgresSettings settings;
  private PostgresStore store;

  @BeforeEach
  void start() {
    PostgresSettings fresh = TestDatabase.freshSchema(2);
    settings = new PostgresSettings(fresh.url(), fresh.user(), fresh.password(), 2,
        Duration.ofSeconds(1));
    store = new PostgresStore(settings);
    store.start();
  }

  @AfterEach
  void stop() {
    store.close();
    TestDatabase.dropSchema(TestDatabase.schemaOf(settings));
  }

  @Test
  void everyConnectionAsksTheServerToCheckForItsClient() throws Exception {
    try (Connection c = store.connect()) {
      assertThat(SessionProbe.setting(c, "client_connection_check_interval")).isEqualTo("2s");
      // A session frozen inside a transaction must not keep its locks for long.
      assertThat(SessionProbe.setting(c, "idle_in_transaction_session_timeout")).isEqualTo("5s");
      // Only the reaper lock's session is ended when idle.
      assertThat(SessionProbe.setting(c, "idle_session_timeout")).isEqualTo("0");
    }
  }

  /**
   * A statement waits on a lock past the stall timeout: the node closes its connection, and the
   * server ends the statement and the session soon after instead of waiting on (and then taking
   * the lock for a session nobody serves).
   */
  @Test
  void aStatementWhoseConnectionAStallClosedEndsOnTheServer() throws Exception {
    long key = ThreadLocalRandom.current().nextLong();
    try (Connection holder = DriverManager.getConnection(TestDatabase.baseUrl());
        Statement hs = holder.createStatement()) {
      hs.execute("SELECT pg_advisory_lock(" + key + ")");
      int pid;
      try (Connection c = store.connect()) {
        pid = SessionProbe.backendPid(c);
        try (Statement s = c.createStatement()) {
          assertThatThrownBy(() -> s.execute("SELECT pg_advisory_lock(" + key + ")"))
              .satisfies(e -> assertThat(PgStall.timedOut(e)).isTrue());
        }
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (TestDatabase.query("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid) > 0) {
        assertThat(System.nanoTime()).as("backend " + pid + " still running").isLessThan(deadline);
        LockSupport.parkNanos(50_000_000);
      }
    }
  }
}
