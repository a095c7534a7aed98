package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;

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
 * A long-poll authorised after its settings mark: a token revoked between the check and the wait
 * ends the wait with nothing, and nothing published later is handed to it.
 */
class ReceiveMarkTest {
  private static final QueueSettingsPatch REVOKE =
      new QueueSettingsPatch(null, null, null, null, null, null, List.of("new-token"));

  @TempDir Path dir;
  private SqliteBroker open;
  private Broker broker;

  @BeforeEach
  void start() {
    open = SqliteBroker.open(dir.resolve("wharf.db"));
    broker = open.broker();
    broker.putQueue("q", new QueueSettingsPatch(null, null, null, null, null, null,
        List.of("old-token")));
  }

  @AfterEach
  void stop() {
    open.close();
  }

  @Test
  void aWaitWhoseMarkIsOlderThanAChangeEndsAtOnceAndIsHandedNothing() throws Exception {
    long mark = broker.settingsMark("q");
    // The tokens change after the mark, as if between the token check and the wait.
    broker.putQueue("q", REVOKE);
    CompletableFuture<List<Delivery>> waiting =
        broker.receiveLater("q", 1, Duration.ofSeconds(30), null, mark);
    assertThat(waiting.get(20, TimeUnit.SECONDS)).isEmpty();
    broker.publish("q", List.of(Publish.json("{}")));
    assertThat(broker.receiveLater("q", 1, Duration.ZERO, null).get(20, TimeUnit.SECONDS))
        .as("the message is still there for a consumer under the new tokens").hasSize(1);
  }

  @Test
  void aStreamRoundWhoseMarkIsOlderThanAChangeEndsWithNothing() {
    long mark = broker.settingsMark("q");
    broker.putQueue("q", REVOKE);
    long began = System.nanoTime();
    assertThat(broker.receiveRound("q", 1, Duration.ofSeconds(30), null, mark)).isEmpty();
    assertThat(System.nanoTime() - began).isLessThan(TimeUnit.SECONDS.toNanos(20));
  }

  @Test
  void aWaitWithACurrentMarkIsHandedWhatIsPublished() throws Exception {
    CompletableFuture<List<Delivery>> waiting =
        broker.receiveLater("q", 1, Duration.ofSeconds(30), null, broker.settingsMark("q"));
    broker.publish("q", List.of(Publish.json("{\"n\":1}")));
    assertThat(waiting.get(20, TimeUnit.SECONDS)).hasSize(1);
  }
}
