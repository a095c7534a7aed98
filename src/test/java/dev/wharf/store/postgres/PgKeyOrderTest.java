package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ContentType;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.QueueRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes publishing messages whose keys come in opposite orders: each takes its keys in one
 * order, so neither waits on the other for long, and PostgreSQL never has to break a deadlock by
 * failing one of them.
 */
class PgKeyOrderTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final int ROUNDS = 100;

  private PostgresSettings settings;
  private final List<PostgresStore> nodes = new ArrayList<>();

  @BeforeEach
  void twoNodes() {
    settings = TestDatabase.freshSchema(4);
    for (int i = 0; i < 2; i++) {
      PostgresStore store = new PostgresStore(settings, 120_000);
      store.start();
      nodes.add(store);
    }
    nodes.get(0).queuesPut(new QueueRecord("q", "{}", null));
  }

  @AfterEach
  void close() {
    nodes.forEach(PostgresStore::close);
    TestDatabase.dropSchema(TestDatabase.schemaOf(settings));
  }

  @Test
  void upsertKeysInOppositeOrders() throws Exception {
    publishInOppositeOrders((round, key) ->
        new NewMessage(ContentType.TEXT, "x".getBytes(), Map.of(), null, NOW, null, null, key));
  }

  @Test
  void idempotencyKeysInOppositeOrders() throws Exception {
    publishInOppositeOrders((round, key) ->
        new NewMessage(ContentType.TEXT, "x".getBytes(), Map.of(), null, NOW, null,
            key + "-" + round, null));
  }

  private void publishInOppositeOrders(BiFunction<Integer, String, NewMessage> message)
      throws Exception {
    CyclicBarrier together = new CyclicBarrier(2);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int n = 0; n < 2; n++) {
        PostgresStore node = nodes.get(n);
        List<String> order = n == 0 ? List.of("k1", "k2") : List.of("k2", "k1");
        runs.add(pool.submit(() -> {
          for (int round = 0; round < ROUNDS; round++) {
            List<NewMessage> messages = new ArrayList<>();
            for (String key : order) {
              messages.add(message.apply(round, key));
            }
            try {
              together.await(10, TimeUnit.SECONDS);
              node.messagesPublish(new PublishBatch("q", messages, NOW, NOW.plusSeconds(600)));
            } catch (Exception e) {
              failures.add(e);
            }
          }
        }));
      }
      for (Future<?> f : runs) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(failures).as("publishes failed").isEmpty();
  }
}
