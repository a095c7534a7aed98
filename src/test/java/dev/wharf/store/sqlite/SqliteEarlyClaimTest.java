package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.BrowseRequest;
import dev.wharf.store.ClaimRequest;
import dev.wharf.store.ContentType;
import dev.wharf.store.Delivery;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.QueueRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claim is answered at commit when the messages it leases are already on disk, and only after
 * the fsync when one of them is not: a consumer must never hold a message a crash could lose. An
 * asynchronous write is answered at its fsync too.
 */
class SqliteEarlyClaimTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  private final SyncGate gate = new SyncGate();
  private SqliteStore store;

  @BeforeEach
  void open() {
    store = SyncGate.storeAt(dir.resolve("wharf.db"), gate);
    store.start();
    store.queuesPut(new QueueRecord("q", "{}", null));
  }

  @AfterEach
  void close() {
    gate.open();
    store.close();
  }

  @Test
  void claimOfADurableMessageIsAnsweredWhileFsyncsAreHeldBack() throws Exception {
    publish("durable");
    gate.close();

    List<Delivery> got = CompletableFuture.supplyAsync(this::claim).get(5, TimeUnit.SECONDS);

    assertThat(got).extracting(SqliteEarlyClaimTest::payload).containsExactly("durable");
  }

  @Test
  void claimOfAMessageNotYetOnDiskWaitsForTheFsync() throws Exception {
    gate.close();
    CompletableFuture<PublishResult> publishing =
        CompletableFuture.supplyAsync(() -> publish("in-flight"));
    CompletableFuture<List<Delivery>> claiming =
        CompletableFuture.supplyAsync(
            () -> {
              // The publish commits before its fsync; keep claiming until the claim finds it.
              List<Delivery> got;
              do {
                got = claim();
              } while (got.isEmpty());
              return got;
            });
    awaitLeased(1);

    // Leased in a committed batch, yet neither answer may go out before the fsync.
    assertThat(claiming).isNotDone();
    assertThat(publishing).isNotDone();

    gate.open();
    List<Delivery> got = claiming.get(5, TimeUnit.SECONDS);
    assertThat(got).extracting(SqliteEarlyClaimTest::payload).containsExactly("in-flight");
    assertThat(publishing.get(5, TimeUnit.SECONDS).id()).isEqualTo(got.get(0).message().id());
  }

  @Test
  void claimOfAMessageNotYetOnDiskIsAnsweredByTheFsyncOfThePublishNotItsOwn() throws Exception {
    gate.close();
    CompletableFuture<List<PublishResult>> publishing = store.messagesPublishAsync(batch("fresh"));
    // The publish is committed and its fsync is under way, held at the gate.
    gate.awaitHeld(1);
    CompletableFuture<List<Delivery>> claiming =
        store.messagesClaimAsync(new ClaimRequest("q", 10, NOW, NOW.plusSeconds(60)));
    awaitLeased(1);
    assertThat(claiming).isNotDone();

    gate.letOneThrough();

    List<Delivery> got = claiming.get(5, TimeUnit.SECONDS);
    assertThat(got).extracting(SqliteEarlyClaimTest::payload).containsExactly("fresh");
    assertThat(publishing.get(5, TimeUnit.SECONDS)).extracting(PublishResult::id)
        .containsExactly(got.get(0).message().id());
    // The claim's own batch, not answered at its commit, still waits for the fsync after that one.
    gate.awaitHeld(1);
  }

  @Test
  void claimOfAMessageWhoseReplacementByKeyIsNotYetOnDiskWaitsForTheFsync() throws Exception {
    String first = publish("old", "k").id();
    gate.close();
    CompletableFuture<PublishResult> replacing =
        CompletableFuture.supplyAsync(() -> publish("new", "k"));
    // The replacement is committed (readers see it) but its fsync is held back.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!new String(store.messagesGet("q", first).orElseThrow().payload()).equals("new")) {
      assertThat(System.nanoTime()).as("replaced in time").isLessThan(deadline);
      Thread.sleep(1);
    }
    CompletableFuture<List<Delivery>> claiming = CompletableFuture.supplyAsync(this::claim);
    awaitLeased(1);

    assertThat(claiming).isNotDone();

    gate.open();
    assertThat(replacing.get(5, TimeUnit.SECONDS).replaced()).isTrue();
    assertThat(claiming.get(5, TimeUnit.SECONDS))
        .extracting(d -> new String(d.message().payload()))
        .containsExactly("new");
  }

  @Test
  void anAsynchronousPublishCompletesAtItsFsyncNotAtItsCommit() throws Exception {
    gate.close();
    CompletableFuture<List<PublishResult>> pending = store.messagesPublishAsync(batch("async"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!payloads().contains("async")) {
      assertThat(System.nanoTime()).as("committed in time").isLessThan(deadline);
      Thread.sleep(1);
    }

    assertThat(pending).isNotDone();

    gate.open();
    assertThat(pending.get(5, TimeUnit.SECONDS)).hasSize(1);
    assertThat(store.messagesGet("q", pending.get().get(0).id())).isPresent();
  }

  @Test
  void waitingForAWriteOnTheStoresOwnThreadFailsInsteadOfHanging() {
    gate.close();
    // Chained before the fsync lets the first write complete, so it runs on the fsync thread,
    // which the second write needs.
    CompletableFuture<List<PublishResult>> chained =
        store.messagesPublishAsync(batch("first"))
            .thenApply(done -> store.messagesPublish(batch("second")));
    gate.open();

    assertThat(chained)
        .failsWithin(5, TimeUnit.SECONDS)
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCauseInstanceOf(IllegalStateException.class);
    assertThat(payloads()).containsExactly("first");
  }

  /** Messages are told apart by their payloads, which the tests set: ids are the store's. */
  private PublishBatch batch(String payload) {
    NewMessage m =
        new NewMessage(ContentType.TEXT, payload.getBytes(), Map.of(), null, NOW, null, null, null);
    return new PublishBatch("q", List.of(m), NOW, NOW);
  }

  private PublishResult publish(String payload) {
    return publish(payload, null);
  }

  private PublishResult publish(String payload, String key) {
    NewMessage m =
        new NewMessage(ContentType.TEXT, payload.getBytes(), Map.of(), null, NOW, null, null, key);
    return store.messagesPublish(new PublishBatch("q", List.of(m), NOW, NOW)).get(0);
  }

  private static String payload(Delivery d) {
    return new String(d.message().payload(), StandardCharsets.UTF_8);
  }

  /** The payloads of every committed message of the queue, durable or not yet. */
  private List<String> payloads() {
    return store.messagesBrowse(new BrowseRequest("q", null, null, null, NOW, 0, 100)).stream()
        .map(m -> new String(m.payload(), StandardCharsets.UTF_8))
        .toList();
  }

  private List<Delivery> claim() {
    return store.messagesClaim(new ClaimRequest("q", 10, NOW, NOW.plusSeconds(60)));
  }

  private void awaitLeased(long n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (store.queueCounts("q", NOW).leased() < n) {
      assertThat(System.nanoTime()).as("leased in time").isLessThan(deadline);
      Thread.sleep(1);
    }
  }
}
