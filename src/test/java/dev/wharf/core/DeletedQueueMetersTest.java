package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.BrokerMetrics.Event;
import dev.wharf.store.sqlite.SqliteStore;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deleted queue's series leave /metrics with it, and stay out: counts that land after the
 * deletion (a reaper pass or a settle under way as it ran, or another node's deletion heard
 * late) must not bring them back, one series a queue for the rest of the server's life.
 */
class DeletedQueueMetersTest {
  @TempDir Path dir;

  @Test
  void countsAfterADeletionMakeNoSeriesAndAQueueMadeAgainStartsFromZero() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SqliteStore store = new SqliteStore(dir.resolve("wharf.db"));
    store.start();
    Broker broker =
        new Broker(store, MutableClock.atEpochDay(), BrokerOptions.defaults(), registry);
    try {
      broker.startWithoutReapers();
      for (int i = 0; i < 50; i++) {
        String q = "churn-" + i;
        broker.putQueue(q, QueueSettingsPatch.EMPTY);
        broker.metrics().count(q, Event.ACKED, 1);
        broker.deleteQueue(q);
        broker.deleteQueue(q + ".dlq");
        // What a settle or reaper pass that finished just after the deletion counts.
        broker.metrics().count(q, Event.ACKED, 1);
        broker.metrics().count(q, Event.EXPIRED, 2);
      }
      assertThat(queueTags(registry)).isEmpty();
      assertThat(broker.metrics().queuesWithMeters()).isZero();

      broker.putQueue("churn-3", QueueSettingsPatch.EMPTY);
      assertThat(broker.metrics().total("churn-3", Event.ACKED)).isZero();
      assertThat(queueTags(registry)).containsOnly("churn-3", "churn-3.dlq");
    } finally {
      broker.close();
      store.close();
    }
  }

  private static List<String> queueTags(SimpleMeterRegistry registry) {
    return registry.getMeters().stream()
        .map(Meter::getId)
        .map(id -> id.getTag("queue"))
        .filter(q -> q != null)
        .distinct()
        .toList();
  }
}
