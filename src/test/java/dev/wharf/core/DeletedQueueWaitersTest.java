package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.Delivery;
import dev.wharf.testing.SqliteBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long-poll authorised on a queue that is deleted before it parks (the HTTP services take the
 * settings mark, check the token, then receive) leaves no list of waiters behind: a server that
 * makes and deletes queues all day would otherwise keep one per name.
 */
class DeletedQueueWaitersTest {
  @TempDir Path dir;
  private SqliteBroker open;
  private Broker broker;

  @BeforeEach
  void start() {
    open = SqliteBroker.open(dir.resolve("wharf.db"));
    broker = open.broker();
  }

  @AfterEach
  void stop() {
    open.close();
  }

  @Test
  void aReceiveMarkedBeforeTheDeletionLeavesNoListBehind() {
    for (int i = 0; i < 20; i++) {
      String q = "churn-" + i;
      broker.putQueue(q, QueueSettingsPatch.EMPTY);
      long mark = broker.settingsMark(q);
      broker.deleteQueue(q);
      assertThatThrownBy(() -> broker.receiveLater(q, 1, Duration.ofSeconds(30), null, mark))
          .isInstanceOf(BrokerException.QueueNotFound.class);
      assertThatThrownBy(() -> broker.settingsMark(q))
          .isInstanceOf(BrokerException.QueueNotFound.class);
    }
    assertThat(broker.queuesWithWaiterLists()).isZero();
  }

  @Test
  void aQueueMadeAgainAfterAStaleReceiveServesItsLongPolls() throws Exception {
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    long mark = broker.settingsMark("q");
    broker.deleteQueue("q");
    assertThatThrownBy(() -> broker.receiveLater("q", 1, Duration.ofSeconds(30), null, mark))
        .isInstanceOf(BrokerException.QueueNotFound.class);

    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    CompletableFuture<List<Delivery>> waiting =
        broker.receiveLater("q", 1, Duration.ofSeconds(30), null);
    broker.publish("q", List.of(Publish.json("{}")));
    assertThat(waiting.get(20, TimeUnit.SECONDS)).hasSize(1);
  }

  @Test
  void aListIsMadeOnlyForAQueueThatExists() {
    Waiters w = new Waiters(10, q -> q.equals("here"));
    assertThatThrownBy(() -> w.of("gone")).isInstanceOf(BrokerException.QueueNotFound.class);
    assertThat(w.queuesWithLists()).isZero();
    assertThat(w.of("here")).isSameAs(w.of("here"));
    w.deleted("here");
    assertThat(w.queuesWithLists()).isZero();
  }
}
