package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.Delivery;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node that makes and deletes queues all day must not leave counter rows behind: every node's
 * once-a-second poll reads the whole counters table.
 */
class PgDeletedQueueCountersTest {
  private final MutableClock clock = MutableClock.atEpochDay();
  private PostgresSettings settings;
  private String schema;
  private PostgresStore store;
  private Broker broker;

  @BeforeEach
  void open() {
    settings = TestDatabase.freshSchema(4);
    schema = TestDatabase.schemaOf(settings);
    store = new PostgresStore(settings, 120_000);
    store.start();
    broker = new Broker(store, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
  }

  @AfterEach
  void close() {
    broker.close();
    store.close();
    TestDatabase.dropSchema(schema);
  }

  private int counterRows(String where) {
    return TestDatabase.query("SELECT count(*) FROM " + schema + ".counters WHERE " + where);
  }

  @Test
  void deletingAQueueRemovesItsCounterRows() {
    for (int round = 0; round < 3; round++) {
      broker.putQueue("q", QueueSettingsPatch.EMPTY);
      broker.publish("q", List.of(Publish.json("1"), Publish.json("2"), Publish.json("3")));
      List<Delivery> got = broker.receive("q", 2, Duration.ZERO, null);
      broker.settle().ack("q", List.of(got.get(0).leaseId()), false);
      assertThat(counterRows("queue = 'q'")).isPositive();
      broker.deleteQueue("q");
      assertThat(counterRows("queue = 'q'")).as("round " + round).isZero();
    }
    // Made again under its name, it counts from nothing.
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    broker.publish("q", List.of(Publish.json("4")));
    assertThat(store.queueCounts("q", clock.instant()).ready()).isEqualTo(1);
  }

  @Test
  void deletingAnOriginQueueRemovesItsCellsInADeadLetterQueueHoldingNoneOfItsMessages() {
    broker.putQueue("dlq", QueueSettingsPatch.EMPTY);
    QueueSettingsPatch toDlq =
        new QueueSettingsPatch(null, null, null, Optional.of("dlq"), null, null, null);
    broker.putQueue("q", toDlq);
    broker.putQueue("r", toDlq);
    broker.publish("q", List.of(Publish.json("1")));
    broker.publish("r", List.of(Publish.json("2")));
    broker.settle().dead("q", List.of(one("q")), "bad");
    broker.settle().dead("r", List.of(one("r")), "bad");
    // q's dead message is taken from the DLQ and acked; r's stays there.
    broker.settle().ack("dlq", List.of(one("dlq")), false);
    assertThat(counterRows("origin = 'q'")).isPositive();

    broker.deleteQueue("q");
    broker.deleteQueue("r");
    assertThat(counterRows("origin = 'q'")).isZero();
    assertThat(store.deadCount("dlq", "r")).isEqualTo(1);
    assertThat(store.queueCounts("dlq", clock.instant()).ready()).isEqualTo(1);
  }

  @Test
  void purgingADeadLetterQueueRemovesTheCellsOfOriginsDeletedMeanwhile() {
    broker.putQueue("dlq", QueueSettingsPatch.EMPTY);
    QueueSettingsPatch toDlq =
        new QueueSettingsPatch(null, null, null, Optional.of("dlq"), null, null, null);
    for (String q : List.of("q", "r", "s")) {
      broker.putQueue(q, toDlq);
      broker.publish(q, List.of(Publish.json("1")));
      broker.settle().dead(q, List.of(one(q)), "bad");
    }
    // Deleted while the DLQ holds their messages: their cells there stay, counting them.
    broker.deleteQueue("q");
    broker.deleteQueue("r");
    assertThat(counterRows("origin IN ('q', 'r')")).isPositive();

    assertThat(broker.purge("dlq")).isEqualTo(3);
    assertThat(counterRows("origin IN ('q', 'r')")).isZero();
    assertThat(store.queueCounts("dlq", clock.instant()).ready()).isZero();
    assertThat(store.deadCount("dlq", "s")).isZero();

    // s still exists: what it sends the DLQ next is counted as before.
    broker.publish("s", List.of(Publish.json("2")));
    broker.settle().dead("s", List.of(one("s")), "bad");
    assertThat(store.deadCount("dlq", "s")).isEqualTo(1);
    assertThat(store.queueCounts("dlq", clock.instant()).ready()).isEqualTo(1);
  }

  @Test
  void aPurgedQueueDeletedAfterLeavesNoCounterRows() {
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    broker.publish("q", List.of(Publish.json("1"), Publish.json("2")));
    broker.receive("q", 1, Duration.ZERO, null);
    assertThat(broker.purge("q")).isEqualTo(2);
    assertThat(store.queueCounts("q", clock.instant()).depth()).isZero();
    broker.deleteQueue("q");
    assertThat(counterRows("queue = 'q' OR origin = 'q'")).isZero();
  }

  private String one(String queue) {
    return broker.receive(queue, 1, Duration.ZERO, null).get(0).leaseId();
  }
}
