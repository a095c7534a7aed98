package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.QueueRecord;
import dev.wharf.store.sqlite.SqliteStore;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A token beyond ASCII, as an earlier version stored, is not one to set now, but it stays: no
 * change of other settings, and no hand-over to a DLQ, is refused for it.
 */
class LegacyTokensTest {
  @TempDir Path dir;

  @Test
  void aStoredTokenBeyondAsciiStaysThroughOtherChangesButCannotBeSetAgain() {
    try (SqliteStore store = new SqliteStore(dir.resolve("wharf.db"))) {
      store.start();
      QueueSettings old =
          QueueSettings.defaultsFor("q").withConsumerTokensAlso(List.of("p\u00e4ss", "good"));
      store.queuesPut(new QueueRecord("q", SettingsCodec.toJson(old), null));
      store.queuesPut(
          new QueueRecord("q.dlq", SettingsCodec.toJson(QueueSettings.forDeadLetterQueue()), null));
      try (Broker broker =
          new Broker(store, MutableClock.atEpochDay(), BrokerOptions.defaults(),
              new SimpleMeterRegistry())) {
        broker.startWithoutReapers();
        broker.putQueue(
            "q", new QueueSettingsPatch(Duration.ofSeconds(40), null, null, null, null, null, null));
        assertThat(broker.consumerTokens("q")).containsExactly("p\u00e4ss", "good");

        // Moved off its DLQ, it hands that DLQ both tokens, the old one too.
        broker.putQueue(
            "q",
            new QueueSettingsPatch(null, null, null, Optional.of("q.dlq2"), null, null, null));
        assertThat(broker.consumerTokens("q.dlq")).containsExactly("p\u00e4ss", "good");

        assertThatThrownBy(
                () ->
                    broker.putQueue(
                        "q",
                        new QueueSettingsPatch(
                            null, null, null, null, null, null, List.of("good", "p\u00e4ss"))))
            .isInstanceOf(BrokerException.Invalid.class)
            .hasMessageContaining("consumer_tokens[1]: a token must be ASCII");
        assertThat(broker.consumerTokens("q")).containsExactly("p\u00e4ss", "good");
      }
    }
  }
}
