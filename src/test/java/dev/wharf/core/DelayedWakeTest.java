package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.ContentType;
import dev.wharf.store.Delivery;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.sqlite.SqliteStore;
import dev.wharf.testing.MutableClock;
import dev.wharf.testing.Publishes;
import dev.wharf.testing.SqliteBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delayed messages and the consumers waiting for them: one wake is scheduled per queue, the
 * earliest, however many delayed messages and parked consumers ask for one.
 */
class DelayedWakeTest {
  @TempDir Path dir;

  @Test
  void delayedPublishesAndParksWhileAConsumerWaitsLeaveOneWakeAQueue() {
    try (SqliteBroker open = SqliteBroker.open(dir.resolve("wharf.db"))) {
      Broker broker = open.broker();
      broker.putQueue("q", QueueSettingsPatch.EMPTY);
      int before = broker.scheduledTasks();
      CompletableFuture<List<Delivery>> parked =
          broker.receiveLater("q", 1, Duration.ofSeconds(30), null);
      // The parked receive's own timeout.
      assertThat(broker.scheduledTasks()).isEqualTo(before + 1);
      for (int i = 0; i < 200; i++) {
        broker.publish("q", List.of(Publishes.delayed("1", Duration.ofHours(1).plusSeconds(i))));
      }
      // Short waits that find nothing park and ask for the next visible message's wake too.
      for (int i = 0; i < 50; i++) {
        broker.receiveLater("q", 1, Duration.ofMillis(1), null).join();
      }
      assertThat(broker.scheduledTasks()).isEqualTo(before + 2);
      // An earlier message takes the wake's place, rather than adding one.
      broker.publish("q", List.of(Publishes.delayed("1", Duration.ofMinutes(1))));
      assertThat(broker.scheduledTasks()).isEqualTo(before + 2);
      assertThat(parked).isNotDone();
      broker.deleteQueue("q");
      // Its long-poll is answered (queue not found), and nothing of the queue stays scheduled.
      assertThatThrownBy(parked::join).hasCauseInstanceOf(BrokerException.QueueNotFound.class);
      // Its timeout is cancelled as it is answered, on the thread that answers it.
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (broker.scheduledTasks() > before && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(broker.scheduledTasks()).isEqualTo(before);
    }
  }

  /**
   * Two consumers parked, two messages due one after the other: the wake of the first, which one
   * consumer answers, leaves the next scheduled for the other, which parks again.
   */
  @Test
  void theWakeOfOneDelayedMessageSchedulesTheNext() {
    onQueueQ((broker, clock) -> {
      CompletableFuture<List<Delivery>> a =
          broker.receiveLater("q", 1, Duration.ofSeconds(20), null);
      CompletableFuture<List<Delivery>> b =
          broker.receiveLater("q", 1, Duration.ofSeconds(20), null);
      broker.publish("q", List.of(Publishes.delayed("1", Duration.ofMillis(50))));
      broker.publish("q", List.of(Publishes.delayed("1", Duration.ofMillis(100))));
      clock.advance(Duration.ofMillis(50));
      // The first wake hands the first message to one of them; the other parks again.
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!a.isDone() && !b.isDone() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(a.isDone() ^ b.isDone()).as("one consumer has the first message").isTrue();
      clock.advance(Duration.ofMillis(50));
      // Its wait is 20 s: only a wake of its own brings it the second one within 10.
      assertThat(a.orTimeout(10, TimeUnit.SECONDS).join()).hasSize(1);
      assertThat(b.orTimeout(10, TimeUnit.SECONDS).join()).hasSize(1);
    });
  }

  /**
   * More messages due at one instant than a hundred parked consumers take: every consumer that
   * waits for one gets one at that instant, not at the end of its wait.
   */
  @Test
  void aWakeServesEveryMessageThatCameDueTogether() {
    onQueueQ((broker, clock) -> {
      int consumers = 250;
      List<CompletableFuture<List<Delivery>>> parked = parkOneEach(broker, consumers);
      for (int i = 0; i < consumers; i++) {
        broker.publish("q", List.of(Publishes.delayed("1", Duration.ofMillis(50))));
      }
      clock.advance(Duration.ofMillis(50));
      eachGetsOne(parked);
    });
  }

  /**
   * A delayed publish committed while the only consumer is between two parks (taken for a
   * hand-over that comes back empty: its publish was a duplicate) finds no one waiting; the
   * consumer parks again, and is still woken when the message comes due.
   */
  @Test
  void aDelayedPublishWhileTheConsumerIsBetweenParksStillWakesIt() {
    onQueueQ((broker, clock) -> {
      Publish keyed = new Publish(ContentType.JSON, "1".getBytes(StandardCharsets.UTF_8), null,
          null, null, null, "k", null);
      broker.publish("q", List.of(keyed));
      broker.settle().ack("q", List.of(broker.receive("q", 1, Duration.ZERO, null).get(0)
          .leaseId()), false);
      CompletableFuture<List<Delivery>> consumer =
          broker.receiveLater("q", 1, Duration.ofSeconds(30), null);
      awaitParked(broker, 1);
      // A large write ahead keeps the writer busy, so that the duplicate and the delayed publish
      // commit together and are answered before the consumer is back in the list.
      broker.putQueue("other", QueueSettingsPatch.EMPTY);
      List<Publish> large = new java.util.ArrayList<>();
      for (int i = 0; i < 100; i++) {
        large.add(Publish.json("\"" + "x".repeat(50_000) + "\""));
      }
      CompletableFuture<?> busy = broker.publishAsync("other", large);
      CompletableFuture<?> duplicate = broker.publishAsync("q", List.of(keyed));
      CompletableFuture<?> delayed =
          broker.publishAsync("q", List.of(Publishes.delayed("2", Duration.ofSeconds(1))));
      CompletableFuture.allOf(busy, duplicate, delayed).join();
      awaitParked(broker, 1);
      clock.advance(Duration.ofSeconds(1));
      assertThat(consumer.orTimeout(10, TimeUnit.SECONDS).join()).hasSize(1);
    });
  }

  /**
   * A burst heard of after it came due (another node's delayed publish, reported by its
   * notification; or a write slower than its delay) still reaches every parked consumer.
   */
  @Test
  void aWakeAskedForAfterItsMessagesCameDueServesThemAll() {
    onQueueQ((broker, clock) -> {
      int consumers = 250;
      List<CompletableFuture<List<Delivery>>> parked = parkOneEach(broker, consumers);
      java.time.Instant now = clock.instant();
      java.time.Instant due = now.plusMillis(50);
      List<NewMessage> rows = new java.util.ArrayList<>();
      for (int i = 0; i < consumers; i++) {
        rows.add(new NewMessage(ContentType.JSON, "1".getBytes(StandardCharsets.UTF_8), null,
            null, due, null, null, null));
      }
      // Written past the broker, as another node writes, and heard of once due.
      broker.store().messagesPublish(new PublishBatch("q", rows, now, now.plusSeconds(60)));
      clock.advance(Duration.ofMillis(100));
      broker.madeVisible("q", 0, due);
      eachGetsOne(parked);
    });
  }

  /** Consumers of one message each, parked on q with a wait of 30 s. */
  private static List<CompletableFuture<List<Delivery>>> parkOneEach(Broker broker, int n) {
    List<CompletableFuture<List<Delivery>>> parked = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      parked.add(broker.receiveLater("q", 1, Duration.ofSeconds(30), null));
    }
    return parked;
  }

  /** Their waits are 30 s: only a wake brings each its message within 10. */
  private static void eachGetsOne(List<CompletableFuture<List<Delivery>>> parked) {
    for (CompletableFuture<List<Delivery>> p : parked) {
      assertThat(p.orTimeout(10, TimeUnit.SECONDS).join()).hasSize(1);
    }
  }

  private static void awaitParked(Broker broker, int n) {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (broker.waitingConsumers("q") != n) {
      assertThat(System.nanoTime()).as("%d consumers parked", n).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  /** Runs {@code test} on a broker over a fresh store with queue "q", on a clock it moves. */
  private void onQueueQ(java.util.function.BiConsumer<Broker, MutableClock> test) {
    MutableClock clock = MutableClock.atEpochDay();
    try (SqliteStore store = new SqliteStore(dir.resolve("wharf.db"))) {
      store.start();
      try (Broker broker =
          new Broker(store, clock, BrokerOptions.defaults(), new SimpleMeterRegistry())) {
        broker.startWithoutReapers();
        broker.putQueue("q", QueueSettingsPatch.EMPTY);
        test.accept(broker, clock);
      }
    }
  }
}
