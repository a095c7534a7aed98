package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.QueueRecord;
import dev.wharf.store.sqlite.SqliteStore;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A queue whose dead-letter queue was deleted: the lease reaper, which runs inside the store's
 * writer, moves its dead messages once the DLQ is made again, without waiting on the queue
 * registry (whose changes wait on the writer) and without a write of its own from the writer.
 */
class MissingDeadLetterQueueTest {
  @TempDir Path dir;
  private final MutableClock clock = MutableClock.atEpochDay();

  private Broker open(SqliteStore store) {
    store.start();
    Broker broker = new Broker(store, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
    return broker;
  }

  /** One message of x on its last attempt, its lease run out. */
  private static void leaseRunsOut(Broker broker, MutableClock clock) {
    broker.publish("x", List.of(Publish.json("1")));
    assertThat(broker.receive("x", 1, Duration.ZERO, Duration.ofSeconds(1))).hasSize(1);
    clock.advance(Duration.ofSeconds(2));
  }

  @Test
  void aReaperPassDoesNotWaitOnTheRegistryWhileAQueueChangeWaitsOnTheWriter() throws Exception {
    try (SqliteStore store = new SqliteStore(dir.resolve("wharf.db"))) {
      try (Broker broker = open(store)) {
        broker.putQueue("x", new QueueSettingsPatch(null, null, 1, null, null, null, null));
        broker.deleteQueue("x.dlq");
        leaseRunsOut(broker, clock);
        CompletableFuture<Void> pass;
        // Held as a queue change holds it while its write waits for the writer.
        synchronized (broker.queues()) {
          pass = CompletableFuture.runAsync(() -> broker.reapers().runOnce(clock.instant()),
              Thread::startVirtualThread);
          CompletableFuture<Void> write = CompletableFuture.runAsync(
              () -> store.queuesPut(new QueueRecord("y", "{}", null)),
              Thread::startVirtualThread);
          write.get(10, TimeUnit.SECONDS);
        }
        pass.get(10, TimeUnit.SECONDS);
        assertThat(broker.stats("x.dlq").counts().ready()).isEqualTo(1);
      }
    }
  }

  @Test
  void aDeadLetterQueueDeletedBeforeAStartIsMadeAgainByTheFirstDeadMove() {
    Path file = dir.resolve("wharf.db");
    try (SqliteStore store = new SqliteStore(file); Broker broker = open(store)) {
      broker.putQueue("x", new QueueSettingsPatch(null, null, 1, null, null, null, null));
      broker.deleteQueue("x.dlq");
    }
    try (SqliteStore store = new SqliteStore(file); Broker broker = open(store)) {
      leaseRunsOut(broker, clock);
      broker.reapers().runOnce(clock.instant());
      assertThat(broker.stats("x.dlq").counts().ready()).isEqualTo(1);
      assertThat(broker.stats("x").counts().leased()).isZero();
      assertThat(broker.queues().require("x.dlq").deadLetterQueue()).isNull();
    }
  }
}
