package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.ReapResult;
import dev.wharf.store.SettleKind;
import dev.wharf.store.SettleRequest;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a node does without the session settings that came with PostgreSQL 14 ({@link
 * PgSession}): it starts and works without them, and the server then behaves as docs/postgres.md
 * says an older one does. A subclass names the server.
 */
abstract class OlderServerChecks {
  /** The reaper session's idle bound the nodes ask for; an older server cannot apply it. */
  private static final long REAPER_IDLE_MS = 1000;

  private static final LeaseExpiryRequest PASS = new LeaseExpiryRequest(
      Instant.ofEpochMilli(1_000_000), 100, q -> new DeadLetterPolicy(0, null));

  private TwoNodes nodes;

  abstract PgTestServer server();

  @BeforeEach
  void schema() {
    nodes = new TwoNodes(server());
    assertThat(server().query("SELECT current_setting('server_version_num')::int"))
        .as("a server older than 14").isLessThan(140_000);
  }

  @AfterEach
  void closeAll() throws Exception {
    nodes.close();
  }

  private PostgresStore node(PostgresSettings s) {
    return nodes.node(s, REAPER_IDLE_MS, PgSession.TRANSACTION_IDLE_MILLIS);
  }

  @Test
  void sessionsTakeTheSettingsTheServerHas() throws Exception {
    PostgresStore store = node(nodes.direct);
    try (Connection c = store.connect()) {
      assertThat(SessionProbe.setting(c, "idle_in_transaction_session_timeout")).isEqualTo("5s");
      assertThat(SessionProbe.setting(c, "tcp_keepalives_idle")).isEqualTo("30");
      assertThat(SessionProbe.setting(c, "synchronous_commit")).isEqualTo("on");
    }
    assertThat(nodes.server.query("SELECT count(*) FROM pg_settings WHERE name IN"
        + " ('client_connection_check_interval', 'idle_session_timeout')")).isZero();
    // The reaper lock's session does without its idle bound.
    assertThat(store.leasesExpire(PASS)).isEqualTo(ReapResult.NONE);
    assertThat(store.reaperLockHeld()).isTrue();
  }

  /**
   * Asking what the server can do fails no statement there, which the server would log as an
   * ERROR: in one transaction, a failed statement would abort the rest.
   */
  @Test
  void askingWhatTheServerCanDoFailsNoStatement() throws Exception {
    try (Connection c = DriverManager.getConnection(nodes.server.baseUrl())) {
      c.setAutoCommit(false);
      PgSession.Features f = PgSession.probe(c);
      assertThat(f.checksClient()).isFalse();
      assertThat(f.endsIdle()).isFalse();
      try (Statement s = c.createStatement()) {
        s.execute("SELECT 1");
      }
      c.rollback();
    }
  }

  /** A settle's transaction commits without the WAL flush there too, a publish's with it. */
  @Test
  void settlesCommitWithoutTheFlushThereToo() {
    PostgresStore store = node(nodes.direct);
    store.queuesPut(new QueueRecord("q", "{}", null));
    Instant now = Instant.ofEpochMilli(1_000_000);
    NewMessage m = new NewMessage(ContentType.JSON, "{}".getBytes(StandardCharsets.UTF_8),
        Map.of(), null, now, null, null, null);
    List<String> commits = new CopyOnWriteArrayList<>();
    store.beforeEachCommit(c -> commits.add(SessionProbe.setting(c, "synchronous_commit")));
    store.messagesPublish(new PublishBatch("q", List.of(m), now, now.plusSeconds(60)));
    Delivery d = store.messagesClaim(new ClaimRequest("q", 1, now, now.plusSeconds(30), 1 << 20))
        .get(0);
    store.messagesSettle(new SettleRequest("q", SettleKind.ACK, List.of(d.leaseId()), now, null,
        null, null, null, false));
    assertThat(commits).containsExactly("on", "off", "off");
  }

  /** Vacuums counted in inserts came with 13: set where the server has them, else left out. */
  @Test
  void theMessagesTableVacuumsForItsInsertsWhereTheServerCan() {
    node(nodes.direct);
    boolean thirteen =
        nodes.server.query("SELECT current_setting('server_version_num')::int") >= 130_000;
    assertThat(nodes.server.query("SELECT count(*) FROM pg_class WHERE relname = 'messages'"
        + " AND relnamespace = '" + TestDatabase.schemaOf(nodes.direct) + "'::regnamespace"
        + " AND 'autovacuum_vacuum_insert_scale_factor=0.05' = ANY(reloptions)"))
        .isEqualTo(thirteen ? 1 : 0);
    assertThat(nodes.server.query("SELECT count(*) FROM pg_class WHERE relname = 'messages'"
        + " AND relnamespace = '" + TestDatabase.schemaOf(nodes.direct) + "'::regnamespace"
        + " AND 'autovacuum_vacuum_scale_factor=0.02' = ANY(reloptions)")).isEqualTo(1);
  }

  /**
   * The server does not look for a client gone while a statement runs: a statement waiting on a
   * lock whose connection a stall closed runs on until it has something to send, here once the
   * lock is free, and then ends.
   */
  @Test
  void aStatementWhoseConnectionAStallClosedRunsOnUntilItAnswers() throws Exception {
    PostgresSettings stalling = new PostgresSettings(nodes.direct.url(), null, null, 2,
        Duration.ofSeconds(1));
    PostgresStore store = node(stalling);
    long key = ThreadLocalRandom.current().nextLong();
    int pid;
    try (Connection holder = DriverManager.getConnection(nodes.server.baseUrl());
        Statement hs = holder.createStatement()) {
      hs.execute("SELECT pg_advisory_lock(" + key + ")");
      try (Connection c = store.connect()) {
        pid = SessionProbe.backendPid(c);
        try (Statement s = c.createStatement()) {
          assertThatThrownBy(() -> s.execute("SELECT pg_advisory_lock(" + key + ")"))
              .satisfies(e -> assertThat(PgStall.timedOut(e)).isTrue());
        }
      }
      // Past the interval at which a newer server would have ended it.
      LockSupport.parkNanos(Duration.ofSeconds(PgSession.CHECK_CLIENT_SECONDS + 1).toNanos());
      assertThat(running(pid)).as("backend " + pid + " waits on").isTrue();
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (running(pid)) {
      assertThat(System.nanoTime()).as("backend " + pid + " still running").isLessThan(deadline);
      LockSupport.parkNanos(50_000_000);
    }
  }

  /**
   * Without {@code idle_session_timeout} the server keeps a frozen holder's reaper session, so
   * no other node takes the reapers over; the holder goes on with them once it runs again.
   */
  @Test
  void aFrozenReaperHolderKeepsTheReapers() {
    TestDatabase.Relayed relayed = nodes.relay();
    PostgresStore a = node(nodes.through(relayed, nodes.direct.stallTimeout()));
    PostgresStore b = node(nodes.direct);
    assertThat(a.leasesExpire(PASS)).isEqualTo(ReapResult.NONE);
    assertThat(a.reaperLockHeld()).isTrue();

    relayed.proxy().freeze();
    long until = System.nanoTime() + Duration.ofMillis(REAPER_IDLE_MS * 3).toNanos();
    while (System.nanoTime() < until) {
      assertThat(b.leasesExpire(PASS)).isEqualTo(ReapResult.NONE);
      assertThat(b.reaperLockHeld()).isFalse();
      LockSupport.parkNanos(100_000_000);
    }

    relayed.proxy().thaw();
    assertThat(a.leasesExpire(PASS)).isEqualTo(ReapResult.NONE);
    assertThat(a.reaperLockHeld()).isTrue();
    assertThat(b.leasesExpire(PASS)).isEqualTo(ReapResult.NONE);
    assertThat(b.reaperLockHeld()).isFalse();
  }

  private boolean running(int pid) {
    return nodes.server.query("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid) > 0;
  }
}
