package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.Delivery;
import dev.wharf.store.Message;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operations that reach the writer together run in one transaction. Held behind an operation
 * that waits, everything queued meanwhile lands in the next batch, so these tests know exactly
 * what shares a transaction.
 */
class GroupCommitBatchTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  private SqliteStore store;
  private final CountDownLatch release = new CountDownLatch(1);

  @BeforeEach
  void open() {
    store = new SqliteStore(dir.resolve("wharf.db"));
    store.start();
    store.queuesPut(new QueueRecord("q", "{}", null));
    store.queuesPut(new QueueRecord("other", "{}", null));
  }

  @AfterEach
  void close() {
    release.countDown();
    store.close();
  }

  @Test
  void claimsOfOneQueueInOneBatchShareItsHeadInTheOrderTheyCame() throws Exception {
    publish("q", 0, 6);
    publish("other", 10, 2);
    holdWriter();
    List<CompletableFuture<List<Delivery>>> claims = new ArrayList<>();
    claims.add(store.messagesClaimAsync(claim("q", 2)));
    claims.add(store.messagesClaimAsync(claim("other", 1)));
    claims.add(store.messagesClaimAsync(claim("q", 1)));
    claims.add(store.messagesClaimAsync(claim("q", 2)));
    // More than one read's worth with the claims before it: it reads on its own, after them.
    claims.add(store.messagesClaimAsync(claim("q", 99)));
    release.countDown();

    List<List<String>> ids = new ArrayList<>();
    for (CompletableFuture<List<Delivery>> c : claims) {
      ids.add(c.get(5, TimeUnit.SECONDS).stream().map(GroupCommitBatchTest::name).toList());
    }
    assertThat(ids).containsExactly(
        List.of("m0", "m1"), List.of("m10"), List.of("m2"), List.of("m3", "m4"), List.of("m5"));
    assertThat(store.queueCounts("q", NOW).leased()).isEqualTo(6);
    assertThat(store.queueCounts("q", NOW).ready()).isZero();
  }

  @Test
  void claimsThatShareAReadKeepEachItsOwnByteBound() throws Exception {
    publish("q", 0, 6);
    holdWriter();
    // Payloads are two bytes each: "m0", "m1", ...
    CompletableFuture<List<Delivery>> fourBytes =
        store.messagesClaimAsync(new ClaimRequest("q", 5, NOW, NOW.plusSeconds(60), 4));
    CompletableFuture<List<Delivery>> oneByte =
        store.messagesClaimAsync(new ClaimRequest("q", 5, NOW, NOW.plusSeconds(60), 1));
    CompletableFuture<List<Delivery>> any = store.messagesClaimAsync(claim("q", 2));
    release.countDown();

    // Each takes its share within its own bounds; one whose first message is over its bound
    // still takes that message, alone.
    assertThat(fourBytes.get(5, TimeUnit.SECONDS)).extracting(GroupCommitBatchTest::name)
        .containsExactly("m0", "m1");
    assertThat(oneByte.get(5, TimeUnit.SECONDS)).extracting(GroupCommitBatchTest::name)
        .containsExactly("m2");
    assertThat(any.get(5, TimeUnit.SECONDS)).extracting(GroupCommitBatchTest::name)
        .containsExactly("m3", "m4");
    assertThat(store.queueCounts("q", NOW).ready()).isEqualTo(1);
  }

  @Test
  void claimsOfAQueueRunTogetherWhereTheFirstOfThemCame() throws Exception {
    publish("q", 0, 2);
    holdWriter();
    CompletableFuture<List<Delivery>> first = store.messagesClaimAsync(claim("q", 1));
    CompletableFuture<?> between = store.messagesPublishAsync(batch("q", 2, 1));
    CompletableFuture<List<Delivery>> second = store.messagesClaimAsync(claim("q", 3));
    release.countDown();

    between.get(5, TimeUnit.SECONDS);
    assertThat(first.get(5, TimeUnit.SECONDS)).extracting(GroupCommitBatchTest::name)
        .containsExactly("m0");
    // Read with the first claim, before the publish between them: a valid order of the three.
    assertThat(second.get(5, TimeUnit.SECONDS)).extracting(GroupCommitBatchTest::name)
        .containsExactly("m1");
    assertThat(store.queueCounts("q", NOW).ready()).isEqualTo(1);
  }

  @Test
  void plainPublishesOfOneQueueInOneBatchGoInTogetherEachWithItsOwnResultsAndTime()
      throws Exception {
    holdWriter();
    Instant later = NOW.plusSeconds(5);
    CompletableFuture<List<PublishResult>> first = store.messagesPublishAsync(batch("q", 0, 2));
    CompletableFuture<List<PublishResult>> other = store.messagesPublishAsync(batch("other", 5, 1));
    CompletableFuture<List<PublishResult>> keyed =
        store.messagesPublishAsync(new PublishBatch("q", List.of(keyed("m7", "k")), NOW, NOW));
    CompletableFuture<List<PublishResult>> second =
        store.messagesPublishAsync(new PublishBatch("q", batch("q", 2, 3).messages(), later, NOW));
    release.countDown();

    // Each request's results are its own messages, in order.
    List<Message> q1 = stored("q", first.get(5, TimeUnit.SECONDS));
    List<Message> o = stored("other", other.get(5, TimeUnit.SECONDS));
    List<Message> k = stored("q", keyed.get(5, TimeUnit.SECONDS));
    List<Message> q2 = stored("q", second.get(5, TimeUnit.SECONDS));
    assertThat(q1).extracting(GroupCommitBatchTest::name).containsExactly("m0", "m1");
    assertThat(o).extracting(GroupCommitBatchTest::name).containsExactly("m5");
    assertThat(k).extracting(GroupCommitBatchTest::name).containsExactly("m7");
    assertThat(q2).extracting(GroupCommitBatchTest::name).containsExactly("m2", "m3", "m4");
    // The queue's plain publishes ran as one, where the first of them came: consecutive seqs,
    // ahead of the publishes to another queue and of the keyed one that came between them.
    List<Long> seqs = new ArrayList<>();
    for (List<Message> ms : List.of(q1, q2, o, k)) {
      ms.forEach(m -> seqs.add(m.seq()));
    }
    long base = seqs.get(0);
    assertThat(seqs).containsExactly(base, base + 1, base + 2, base + 3, base + 4, base + 5,
        base + 6);
    assertThat(q1.get(1).publishedAt()).isEqualTo(NOW);
    assertThat(q2.get(0).publishedAt()).isEqualTo(later);
    assertThat(k.get(0).key()).isEqualTo("k");
    assertThat(store.queueCounts("q", NOW).ready()).isEqualTo(6);
    assertThat(store.queueCounts("other", NOW).ready()).isEqualTo(1);
  }

  @Test
  void aFailingOperationFailsAloneAndLeavesNoWriteBehind() throws Exception {
    holdWriter();
    CompletableFuture<?> before = store.messagesPublishAsync(batch("q", 0, 1));
    CompletableFuture<Object> failing = store.writer().submitAsync(tx -> {
      SqlitePublish.publish(tx, batch("q", 1, 1));
      throw new IllegalStateException("a bug in an operation");
    }, WriteAnswer.DURABLE);
    CompletableFuture<?> after = store.messagesPublishAsync(batch("q", 2, 1));
    release.countDown();

    before.get(5, TimeUnit.SECONDS);
    after.get(5, TimeUnit.SECONDS);
    assertThat(failing)
        .failsWithin(5, TimeUnit.SECONDS)
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(StoreException.class);
    // Another batch commits; the failed operation's insert must not ride along with it.
    publish("q", 3, 1);
    assertThat(store.queueCounts("q", NOW).ready()).isEqualTo(3);
    assertThat(store.messagesClaim(claim("q", 10))).extracting(GroupCommitBatchTest::name)
        .containsExactly("m0", "m2", "m3");
  }

  @Test
  void leasesHeldInMemoryByARolledBackOperationAreUndoneWithIt() throws Exception {
    publish("q", 0, 3);
    holdWriter();
    CompletableFuture<List<Delivery>> first = store.messagesClaimAsync(claim("q", 2));
    CompletableFuture<Object> failing = store.writer().submitAsync(tx -> {
      SqliteClaim.claim(tx, claim("q", 1));
      throw new IllegalStateException("a bug after a claim");
    }, WriteAnswer.DURABLE);
    release.countDown();

    assertThat(first.get(5, TimeUnit.SECONDS)).extracting(GroupCommitBatchTest::name)
        .containsExactly("m0", "m1");
    assertThat(failing).failsWithin(5, TimeUnit.SECONDS);
    // The failed claim's lease and cursor went with its transaction: m2 is ready, not lost.
    assertThat(store.messagesClaim(claim("q", 10))).extracting(GroupCommitBatchTest::name)
        .containsExactly("m2");
    assertThat(store.queueCounts("q", NOW).leased()).isEqualTo(3);
  }

  @Test
  void aPurgeLargerThanOneChunkDeletesEveryStateOfItsQueueInChunksAndCountsThemOut() {
    int total = SqliteQueues.DELETE_CHUNK * 2 + 7;
    for (int first = 0; first < total; first += 1000) {
      publish("q", first, Math.min(1000, total - first));
    }
    publish("other", 0, 3);
    assertThat(store.messagesClaim(claim("q", 5))).hasSize(5);
    long commitsBefore = store.writer().commits();

    assertThat(store.messagesPurge("q")).isEqualTo(total);

    // Not one transaction: the ready messages went a chunk at a time.
    assertThat(store.writer().commits() - commitsBefore).isGreaterThanOrEqualTo(3);
    assertThat(store.queueCounts("q", NOW).ready()).isZero();
    assertThat(store.queueCounts("q", NOW).leased()).isZero();
    assertThat(store.queueCounts("other", NOW).ready()).isEqualTo(3);
    assertThat(store.messagesClaim(claim("q", 10))).isEmpty();
    assertThat(store.messagesPurge("q")).isZero();
  }

  @Test
  void leasedMessagesOfADeletedQueueGoInChunksToo() {
    int total = SqliteQueues.DELETE_CHUNK + 3;
    for (int first = 0; first < total; first += 1000) {
      publish("q", first, Math.min(1000, total - first));
    }
    // Leased, and written back (as a lease held a while is): rows of the leased index.
    for (int taken = 0; taken < total; taken += 100) {
      store.messagesClaim(claim("q", 100));
    }
    store.writer().submit(tx -> {
      tx.leases.writeBackQueue(tx, "q");
      return null;
    });
    assertThat(store.queueCounts("q", NOW).leased()).isEqualTo(total);
    long commitsBefore = store.writer().commits();

    assertThat(store.queuesDelete("q")).isTrue();

    assertThat(store.writer().commits() - commitsBefore).isGreaterThanOrEqualTo(3);
    store.queuesPut(new QueueRecord("q", "{}", null));
    assertThat(store.queueCounts("q", NOW).leased()).isZero();
    assertThat(store.messagesClaim(claim("q", 10))).isEmpty();
  }

  /** Occupies the writer until {@link #release}; what is queued meanwhile is the next batch. */
  private void holdWriter() throws InterruptedException {
    CountDownLatch holding = new CountDownLatch(1);
    store.writer().submitAsync(tx -> {
      holding.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return null;
    }, WriteAnswer.DURABLE);
    assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
  }

  private void publish(String queue, int first, int n) {
    store.messagesPublish(batch(queue, first, n));
  }

  private static PublishBatch batch(String queue, int first, int n) {
    List<NewMessage> messages = IntStream.range(first, first + n)
        .mapToObj(i -> new NewMessage(
            ContentType.TEXT, ("m" + i).getBytes(), Map.of(), null, NOW, null, null, null))
        .toList();
    return new PublishBatch(queue, messages, NOW, NOW);
  }

  private static NewMessage keyed(String name, String key) {
    return new NewMessage(ContentType.TEXT, name.getBytes(), Map.of(), null, NOW, null, null, key);
  }

  /** Messages are told apart by their payloads, which the tests set: ids are the store's. */
  private static String name(Delivery d) {
    return name(d.message());
  }

  private static String name(Message m) {
    return new String(m.payload(), StandardCharsets.UTF_8);
  }

  /** The stored messages the results name, in their order. */
  private List<Message> stored(String queue, List<PublishResult> results) {
    return results.stream().map(r -> store.messagesGet(queue, r.id()).orElseThrow()).toList();
  }

  private static ClaimRequest claim(String queue, int max) {
    return new ClaimRequest(queue, max, NOW, NOW.plusSeconds(60));
  }
}
