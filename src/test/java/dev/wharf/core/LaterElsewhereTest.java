package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.Store;
import dev.wharf.store.VisibleElsewhere;
import dev.wharf.store.sqlite.SqliteStore;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another node's word that a queue got messages visible later (PostgreSQL's {@code wharf_later})
 * schedules a wake only for a queue this node knows: for one it does not know, or deleted, the
 * timer would outlive the queue, days for a long delay.
 */
class LaterElsewhereTest {
  @TempDir Path dir;
  private final MutableClock clock = MutableClock.atEpochDay();
  private final AtomicReference<VisibleElsewhere> heard = new AtomicReference<>();
  private SqliteStore real;
  private Broker broker;

  @BeforeEach
  void start() {
    real = new SqliteStore(dir.resolve("wharf.db"));
    real.start();
    Store listened = (Store) Proxy.newProxyInstance(
        Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
          if (method.getName().equals("onVisibleElsewhere")) {
            heard.set((VisibleElsewhere) args[0]);
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    broker = new Broker(listened, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
  }

  @AfterEach
  void stop() {
    broker.close();
    real.close();
  }

  @Test
  void laterInAQueueUnknownHereOrDeletedSchedulesNothing() {
    broker.putQueue("deleted", QueueSettingsPatch.EMPTY);
    broker.deleteQueue("deleted");
    int before = broker.scheduledTasks();
    for (int i = 0; i < 100; i++) {
      Instant at = clock.instant().plus(Duration.ofDays(3)).plusSeconds(i);
      heard.get().visible("unknown-" + i, 0, at);
      heard.get().visible("deleted", 0, at);
    }
    assertThat(broker.scheduledTasks()).isEqualTo(before);
  }

  @Test
  void laterInAKnownQueueSchedulesOneWake() {
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    int before = broker.scheduledTasks();
    heard.get().visible("q", 0, clock.instant().plus(Duration.ofDays(3)));
    assertThat(broker.scheduledTasks()).isEqualTo(before + 1);
    broker.deleteQueue("q");
    assertThat(broker.scheduledTasks()).isEqualTo(before);
  }
}
