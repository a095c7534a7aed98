package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.Delivery;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.QueueCounts;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.SettleKind;
import dev.wharf.store.SettleRequest;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restart serves before the messages on disk are counted, and the writes made while they are
 * counted are counted once: by their own deltas, not again by the count.
 */
class SqliteStartupCountTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  private final CountDownLatch gate = new CountDownLatch(1);
  private SqliteStore store;

  @AfterEach
  void close() {
    gate.countDown();
    if (store != null) {
      store.close();
    }
  }

  @Test
  void writesDuringTheCountAtStartAreCountedOnce() throws Exception {
    // Before the restart: 6 published to q, 2 of them leased, 1 of those dead in q-dlq.
    openWithQueue("q");
    store.queuesPut(new QueueRecord("q-dlq", "{}", null));
    publish(0, 6);
    List<Delivery> leased = claim(2);
    settle(SettleKind.DEAD, leased.get(0));
    reopenHoldingTheCount();

    // Serving while the count is held: a queue with messages on disk is not known to be empty.
    assertThat(store.knownEmpty("q")).isFalse();
    CompletableFuture<QueueCounts> asked =
        CompletableFuture.supplyAsync(() -> store.queueCounts("q", NOW));
    publish(6, 3);
    List<Delivery> more = claim(4);
    settle(SettleKind.ACK, more.get(0));
    settle(SettleKind.ACK, leased.get(1));
    settle(SettleKind.DEAD, more.get(1));
    assertThat(asked).isNotDone();

    gate.countDown();

    // 9 published, 2 acked, 2 dead: 5 left in q, 2 of them leased (more[2], more[3]).
    QueueCounts counts = asked.get(5, TimeUnit.SECONDS);
    assertThat(counts.ready()).isEqualTo(3);
    assertThat(counts.leased()).isEqualTo(2);
    assertThat(store.queueCounts("q-dlq", NOW).ready()).isEqualTo(2);
    assertThat(store.deadCount("q-dlq", "q")).isEqualTo(2);
    assertThat(store.knownEmpty("q")).isFalse();
  }

  @Test
  void aQueueDeletedWhileCountingStaysAtZero() throws Exception {
    openWithQueue("q");
    publish(0, 4);
    claim(1);
    reopenHoldingTheCount();
    CompletableFuture<Boolean> deleting =
        CompletableFuture.supplyAsync(() -> store.queuesDelete("q"));
    assertThat(deleting).isNotDone();
    gate.countDown();
    assertThat(deleting.get(5, TimeUnit.SECONDS)).isTrue();

    store.queuesPut(new QueueRecord("q", "{}", null));
    assertThat(store.queueCounts("q", NOW)).isEqualTo(QueueCounts.EMPTY);
    assertThat(store.knownEmpty("q")).isTrue();
  }

  @Test
  void closingDoesNotWaitForACountUnderWay() throws Exception {
    openWithQueue("q");
    publish(0, 3);
    reopenHoldingTheCount();
    SqliteStore closing = store;
    store = null;

    // The gate stays shut: the count never finishes by itself.
    CompletableFuture.runAsync(closing::close).get(5, TimeUnit.SECONDS);
  }

  private void openWithQueue(String queue) {
    store = new SqliteStore(dir.resolve("wharf.db"));
    store.start();
    store.queuesPut(new QueueRecord(queue, "{}", null));
  }

  /** A restart on the same file whose count of the messages on disk waits for {@link #gate}. */
  private void reopenHoldingTheCount() {
    store.close();
    store = new SqliteStore(dir.resolve("wharf.db"));
    store.holdStartupCount(gate);
    store.start();
  }

  private void publish(int first, int n) {
    List<NewMessage> messages =
        IntStream.range(first, first + n)
            .mapToObj(
                i ->
                    new NewMessage(
                        ContentType.TEXT, "x".getBytes(), Map.of(), null, NOW, null, null, null))
            .toList();
    store.messagesPublish(new PublishBatch("q", messages, NOW, NOW));
  }

  private List<Delivery> claim(int n) {
    List<Delivery> got = store.messagesClaim(new ClaimRequest("q", n, NOW, NOW.plusSeconds(60)));
    assertThat(got).hasSize(n);
    return got;
  }

  private void settle(SettleKind kind, Delivery d) {
    store.messagesSettle(
        new SettleRequest(
            "q", kind, List.of(d.leaseId()), NOW, NOW, NOW, new DeadLetterPolicy(0, "q-dlq"),
            null, false));
  }
}
