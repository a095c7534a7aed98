package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.SettleKind;
import dev.wharf.store.SettleRequest;
import dev.wharf.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes on one schema; one freezes inside a writer batch's transaction: its relay lets the
 * ack's delete through and then nothing, as a node stopped with SIGSTOP between two statements
 * sends nothing more, its kernel still answering keepalives. The server ends that transaction
 * once it has waited its bound, so the other node's settle of the row it locked goes through; the
 * frozen node, once it runs again, fails that write (nothing of it stored) and writes again on a
 * new connection.
 */
class PgFrozenWriterTest {
  /** The bound on a wait inside a transaction here; a batch's own pauses are far shorter. */
  private static final long IDLE_MS = 1500;

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private TwoNodes nodes;

  /** The server the nodes share; a subclass runs the test on another. */
  PgTestServer server() {
    return TestDatabase.server();
  }

  @BeforeEach
  void schema() {
    nodes = new TwoNodes(server());
  }

  @AfterEach
  void closeAll() throws Exception {
    nodes.close();
  }

  private PostgresStore node(PostgresSettings s) {
    return nodes.node(s, PgReaperLock.IDLE_MILLIS, IDLE_MS);
  }

  @Test
  void anotherNodeSettlesARowThatAFrozenWriterLocked() throws Exception {
    TestDatabase.Relayed relayed = nodes.relay();
    // The frozen node's own waits outlast the freeze: only the server can end its transaction.
    PostgresStore a = node(nodes.through(relayed, Duration.ofSeconds(30)));
    PostgresStore b = node(nodes.direct);
    b.queuesPut(new QueueRecord("q", "{}", null));
    b.messagesPublish(batch("before"));
    Delivery leased = a.messagesClaim(new ClaimRequest("q", 1, NOW, NOW.plusSeconds(600))).get(0);

    // The ack's delete (its first on the lane's connection) runs; the node then sends nothing.
    relayed.proxy().freezeAfterStatement("DELETE FROM messages m USING unnest");
    long t0 = System.nanoTime();
    CompletableFuture<List<LeaseOutcome>> frozenAck = a.messagesSettleAsync(ack(leased));
    awaitIdleInTransaction(nodes.server, a);
    // Waits on the row the frozen node's ack deleted, until the server ends that transaction.
    List<LeaseOutcome> settled = b.messagesSettle(ack(leased));
    long tookMs = (System.nanoTime() - t0) / 1_000_000;
    assertThat(settled).extracting(LeaseOutcome::outcome).containsExactly(Outcome.ACKED);
    assertThat(tookMs).as("settled once the bound ended the frozen transaction")
        .isGreaterThanOrEqualTo(IDLE_MS);
    assertThat(frozenAck).isNotDone();

    relayed.proxy().thaw();
    assertThat(frozenAck).failsWithin(Duration.ofSeconds(20))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(StoreException.class)
        .withMessageContaining("nothing of the write was stored");
    // Not wedged: the next write takes a new connection.
    a.messagesPublish(batch("after"));
    List<Delivery> next = a.messagesClaim(new ClaimRequest("q", 10, NOW, NOW.plusSeconds(600)));
    assertThat(next).extracting(d -> new String(d.message().payload(), StandardCharsets.UTF_8))
        .containsExactly("after");
  }

  /** Until the node's session waits inside its transaction for what the relay holds. */
  private static void awaitIdleInTransaction(PgTestServer server, PostgresStore node) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    String sql = "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
        + node.applicationName() + "' AND state = 'idle in transaction'";
    while (server.query(sql) == 0) {
      assertThat(System.nanoTime()).as("the ack's transaction waits").isLessThan(deadline);
      LockSupport.parkNanos(10_000_000);
    }
  }

  private static PublishBatch batch(String body) {
    NewMessage m = new NewMessage(ContentType.TEXT, body.getBytes(StandardCharsets.UTF_8),
        Map.of(), null, NOW, null, null, null);
    return new PublishBatch("q", List.of(m), NOW, NOW.plusSeconds(600));
  }

  private static SettleRequest ack(Delivery d) {
    return new SettleRequest(
        "q", SettleKind.ACK, List.of(d.leaseId()), NOW, null, null, null, null, false);
  }
}
