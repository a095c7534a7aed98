package dev.wharf.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.loopback.HttpConn;
import dev.wharf.loopback.MiniHttp;
import dev.wharf.store.postgres.PostgresSettings;
import dev.wharf.store.postgres.TestDatabase;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kills a server JVM with SIGKILL under publish and consume load, several times, restarting it on
 * the same database (a SQLite file, or a PostgreSQL schema), then drains what is left and checks
 * the promises made over HTTP: nothing published with a 2xx is lost (through crashes, lease expiry
 * or DLQ moves), nothing acked with a 2xx comes back.
 */
@Tag("crash")
class KillNineCrashTest {
  private static final int ROUNDS = 5;
  private static final String QUEUE = "crash";
  private static final String DLQ = "crash.dlq";
  private static final long PROGRESS_TIMEOUT_MS = 20_000;
  private static final long DRAIN_TIMEOUT_MS = 30_000;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sqlite", "postgres"})
  // Only against a hang: every phase has a deadline of its own on its progress (a child's start
  // 60 s, each wait 20-30 s), and a loaded 2-core machine took 142 s for a run that passed.
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void nothingAcknowledgedIsLostAcrossKillNine(String backend, @TempDir Path dir)
      throws Exception {
    PostgresSettings pg = backend.equals("postgres") ? TestDatabase.freshSchema(4) : null;
    try {
      run(pg == null ? dir.resolve("wharf.db").toString() : ChildServer.POSTGRES + pg.url(), dir);
    } finally {
      if (pg != null) {
        TestDatabase.dropSchema(TestDatabase.schemaOf(pg));
      }
    }
  }

  private void run(String db, Path dir) throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    Ledger ledger = new Ledger();
    ServerSlot slot = new ServerSlot();
    CrashClients clients = new CrashClients(slot, ledger, QUEUE);
    ChildProcess child = ChildProcess.start(db, dir.resolve("child-0.log"));
    try {
      // Short leases and few attempts, so leases run out and messages go to the DLQ under load.
      put(child.port(), "/v1/queues/" + QUEUE, "{\"visibility_timeout\":\"1s\",\"max_attempts\":3}");
      slot.up(child.port());
      clients.start(3, 3);
      for (int round = 1; round <= ROUNDS; round++) {
        // Kill at a random point of the load: after a random number of further confirmed
        // publishes, whatever requests are in flight then.
        awaitProgress(ledger.published::size, 100 + random.nextInt(400), child, "round " + round);
        slot.down();
        child.kill();
        child = ChildProcess.start(db, dir.resolve("child-" + round + ".log"));
        slot.up(child.port());
      }
      awaitProgress(ledger.published::size, 200, child, "after the last restart");
      awaitProgress(ledger.acked::size, 100, child, "acks after the last restart");
      // A crash forgets leases not yet written (DESIGN §4), and with them their attempts: poison
      // messages reach the DLQ only once the server has lived through their three leases.
      long dlqDeadline = System.nanoTime() + PROGRESS_TIMEOUT_MS * 1_000_000;
      while (remaining(child.port(), DLQ) == 0) {
        if (System.nanoTime() > dlqDeadline) {
          throw new AssertionError("no DLQ move after the last restart; server log:\n"
              + ChildProcess.tail(child.log()));
        }
        Thread.sleep(50);
      }
      clients.stop();

      Set<Long> fromDlq = new HashSet<>();
      Set<Long> drained = drain(child.port(), ledger, fromDlq);
      drained.addAll(fromDlq);
      List<String> problems = ledger.problems(drained);
      String summary = String.format(
          "seed %d: %d published (+%d unknown), %d acked (+%d unknown), %d deliveries, %d ack"
              + " conflicts, %d abandoned, %d drained (%d from the DLQ)",
          seed, ledger.published.size(), ledger.publishUnknown.size(), ledger.acked.size(),
          ledger.ackUnknown.size(), ledger.deliveries.size(), ledger.ackConflicts.get(),
          ledger.abandoned.get(), drained.size(), fromDlq.size());
      System.out.println(summary);
      assertThat(clients.unexpected).as(summary).isEmpty();
      assertThat(problems).as(summary).isEmpty();
      assertThat(remaining(child.port(), QUEUE) + remaining(child.port(), DLQ))
          .as("messages left after the drain; " + summary).isZero();
      // The run must have exercised what it claims to: abandoned leases, redeliveries, DLQ moves.
      assertThat(ledger.abandoned.get()).as(summary).isPositive();
      // (Poison messages guarantee some; others may get there too, through abandoned batches
      // and leases cut short by a crash.)
      assertThat(fromDlq).as(summary).isNotEmpty();
      assertThat(ledger.deliveries.stream().map(Ledger.Delivery::n).distinct().count())
          .as("some message delivered more than once; " + summary)
          .isLessThan(ledger.deliveries.size());
    } finally {
      clients.stop();
      child.kill();
    }
  }

  /** Waits until {@code counter} has grown by {@code more}, failing if the server stalls. */
  private static void awaitProgress(LongSupplier counter, long more, ChildProcess child,
      String when) throws InterruptedException {
    long target = counter.getAsLong() + more;
    long deadline = System.nanoTime() + PROGRESS_TIMEOUT_MS * 1_000_000;
    while (counter.getAsLong() < target) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no progress " + when + " (" + counter.getAsLong() + " of "
            + target + "); server log:\n" + ChildProcess.tail(child.log()));
      }
      Thread.sleep(10);
    }
  }

  /**
   * Receives and acks everything left in the queue and its DLQ, under long leases, until both
   * are empty; returns the numbers of the messages found. Leases from before the last crash end
   * within a second, then their messages show up here (or in the DLQ) too.
   */
  private static Set<Long> drain(int port, Ledger ledger, Set<Long> fromDlq) throws IOException,
      InterruptedException {
    Set<Long> drained = new HashSet<>();
    long deadline = System.nanoTime() + DRAIN_TIMEOUT_MS * 1_000_000;
    try (MiniHttp conn = new MiniHttp(port, null)) {
      while (System.nanoTime() < deadline) {
        int got = drainOnce(conn, QUEUE, drained, ledger) + drainOnce(conn, DLQ, fromDlq, ledger);
        if (got == 0 && remaining(port, QUEUE) + remaining(port, DLQ) == 0) {
          return drained;
        }
      }
    }
    throw new AssertionError("drain did not finish in " + DRAIN_TIMEOUT_MS + " ms: "
        + remaining(port, QUEUE) + " left in " + QUEUE + ", " + remaining(port, DLQ) + " in " + DLQ);
  }

  private static int drainOnce(HttpConn conn, String queue, Set<Long> drained, Ledger ledger)
      throws IOException {
    long asked = System.nanoTime();
    HttpConn.Response r = conn.send("POST", "/v1/queues/" + queue + "/receive",
        CrashClients.bytes("{\"max\":100,\"wait\":\"200ms\",\"visibility_timeout\":\"60s\"}"));
    if (r.status() == 404) {
      return 0; // the DLQ is made when first needed
    }
    assertThat(r.status()).as(CrashClients.describe(r)).isEqualTo(200);
    Map<String, Long> byLease = CrashClients.deliveries(r, asked, queue, ledger);
    if (byLease.isEmpty()) {
      return 0;
    }
    drained.addAll(byLease.values());
    HttpConn.Response a =
        conn.send("POST", "/v1/queues/" + queue + "/ack", CrashClients.ackBody(byLease.keySet()));
    assertThat(a.status()).as(CrashClients.describe(a)).isEqualTo(200);
    return byLease.size();
  }

  /** Messages of the queue not yet acked (ready, delayed or leased); 0 for a missing queue. */
  private static long remaining(int port, String queue) throws IOException {
    try (MiniHttp conn = new MiniHttp(port, null)) {
      HttpConn.Response r = conn.send("GET", "/v1/queues/" + queue, null);
      if (r.status() == 404) {
        return 0;
      }
      assertThat(r.status()).as(CrashClients.describe(r)).isEqualTo(200);
      JsonNode stats = CrashClients.JSON.readTree(r.body()).path("stats");
      return stats.path("ready").asLong() + stats.path("delayed").asLong()
          + stats.path("leased").asLong();
    }
  }

  private static void put(int port, String path, String body) throws IOException {
    try (MiniHttp conn = new MiniHttp(port, null)) {
      HttpConn.Response r = conn.send("PUT", path, CrashClients.bytes(body));
      assertThat(r.ok()).as(CrashClients.describe(r)).isTrue();
    }
  }
}
