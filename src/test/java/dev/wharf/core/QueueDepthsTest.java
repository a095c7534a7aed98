package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.Store;
import dev.wharf.store.StoreException;
import dev.wharf.store.sqlite.SqliteStore;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueDepthsTest {
  @TempDir Path dir;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicInteger reads = new AtomicInteger();
  private final AtomicBoolean down = new AtomicBoolean();
  /** A queue to delete while its depths are being read, as a deletion during a scrape would. */
  private final AtomicReference<String> deleteDuringRead = new AtomicReference<>();
  private SqliteStore real;
  private Broker broker;

  @BeforeEach
  void start() {
    real = new SqliteStore(dir.resolve("wharf.db"));
    real.start();
    Store counted = (Store) Proxy.newProxyInstance(
        Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
          if (method.getName().equals("queueCounts")) {
            reads.incrementAndGet();
            if (down.get()) {
              throw new StoreException("storage is down", null);
            }
            if (args[0].equals(deleteDuringRead.getAndSet(null))) {
              broker.deleteQueue((String) args[0]);
            }
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    broker = new Broker(counted, MutableClock.atEpochDay(), BrokerOptions.defaults(), registry);
    broker.startWithoutReapers();
    for (String q : List.of("a", "b", "c")) {
      broker.putQueue(q, QueueSettingsPatch.EMPTY);
    }
    broker.publish("a", List.of(Publish.json("1")));
  }

  @AfterEach
  void stop() {
    broker.close();
    real.close();
  }

  private List<Double> scrape() {
    return registry.find("wharf_queue_depth").gauges().stream().map(Gauge::value).toList();
  }

  @Test
  void oneStoreReadServesAQueuesFourGauges() {
    reads.set(0);
    List<Double> depths = scrape();
    // Three queues and their three DLQs, four states each.
    assertThat(depths).hasSize(6 * 4).contains(1.0);
    assertThat(reads.get()).isBetween(6, 12);
  }

  @Test
  void inAScrapeAQueuesDepthsAndAgeShareOneReadAndTheNextScrapeReadsAgain() {
    broker.scrapeStarting();
    reads.set(0);
    assertThat(scrape()).hasSize(6 * 4);
    assertThat(registry.find("wharf_queue_oldest_ready_age_seconds").gauges()).hasSize(6)
        .allMatch(g -> g.value() == 0.0);
    assertThat(reads.get()).isEqualTo(6);
    broker.scrapeStarting();
    scrape();
    assertThat(reads.get()).isEqualTo(12);
  }

  @Test
  void afterAFailedReadTheGaugesAnswerNanWithoutAskingTheStore() {
    down.set(true);
    reads.set(0);
    assertThat(scrape()).hasSize(6 * 4).allMatch(d -> d.isNaN());
    assertThat(reads.get()).isEqualTo(1);
    // Storage is back, but the back-off holds: the next scrape does not wait on it either.
    down.set(false);
    assertThat(scrape()).allMatch(d -> d.isNaN());
    assertThat(reads.get()).isEqualTo(1);
  }

  @Test
  void aDeletedQueuesGaugesReadLateAnswerNanAndLeaveNoSnapshot() {
    List<Gauge> ofA = registry.find("wharf_queue_depth").tag("queue", "a").gauges().stream()
        .toList();
    assertThat(ofA).hasSize(4);
    broker.scrapeStarting();
    // Deleted while its read is under way: the snapshot that read makes is not kept.
    deleteDuringRead.set("b");
    registry.find("wharf_queue_depth").tag("queue", "b").gauges().forEach(Gauge::value);
    assertThat(deleteDuringRead.get()).isNull();
    // Deleted before a scrape that had listed its gauges reads them.
    broker.deleteQueue("a");
    reads.set(0);
    assertThat(ofA).allMatch(g -> Double.isNaN(g.value()));
    assertThat(reads.get()).isZero();
    broker.deleteQueue("a.dlq");
    broker.deleteQueue("b.dlq");
    broker.deleteQueue("c");
    broker.deleteQueue("c.dlq");
    assertThat(broker.queuesWithDepths()).isZero();
  }
}
