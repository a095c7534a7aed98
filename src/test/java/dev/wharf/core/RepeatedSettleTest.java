package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.testing.SqliteBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A settle of a lease settled moments ago: the same kind again is a repeat whose first answer was
 * lost and succeeds with the first outcome; another kind is a conflict, since a success would
 * tell the consumer something untrue (its ack deleted a message it had nacked, say).
 */
class RepeatedSettleTest {
  @TempDir Path dir;
  private SqliteBroker opened;
  private Broker broker;
  private Settlements settle;

  @BeforeEach
  void open() {
    opened = SqliteBroker.open(dir.resolve("wharf.db"));
    broker = opened.broker();
    settle = broker.settle();
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
  }

  @AfterEach
  void close() {
    opened.close();
  }

  private String leased() {
    broker.publish("q", List.of(Publish.json("1")));
    List<Delivery> got = broker.receive("q", 1, Duration.ZERO, null);
    assertThat(got).hasSize(1);
    return got.get(0).leaseId();
  }

  private static Outcome only(List<LeaseOutcome> outcomes) {
    assertThat(outcomes).hasSize(1);
    return outcomes.get(0).outcome();
  }

  private void settledThenAgain(BiFunction<Settlements, List<String>, List<LeaseOutcome>> first,
      Outcome firstOutcome, BiFunction<Settlements, List<String>, List<LeaseOutcome>> again,
      Outcome againOutcome) {
    List<String> lease = List.of(leased());
    assertThat(only(first.apply(settle, lease))).isEqualTo(firstOutcome);
    assertThat(only(again.apply(settle, lease))).isEqualTo(againOutcome);
  }

  @Test
  void theSameSettleAgainAnswersItsFirstOutcome() {
    settledThenAgain((s, l) -> s.ack("q", l, false), Outcome.ACKED,
        (s, l) -> s.ack("q", l, false), Outcome.ACKED);
    settledThenAgain((s, l) -> s.nack("q", l, Duration.ZERO), Outcome.RETRIED,
        (s, l) -> s.nack("q", l, Duration.ZERO), Outcome.RETRIED);
    settledThenAgain((s, l) -> s.dead("q", l, null), Outcome.DEAD,
        (s, l) -> s.dead("q", l, null), Outcome.DEAD);
    settledThenAgain((s, l) -> s.defer("q", l, Duration.ZERO), Outcome.DEFERRED,
        (s, l) -> s.defer("q", l, Duration.ZERO), Outcome.DEFERRED);
    // A nack that found the attempts used up sent the message to the DLQ: so does its repeat.
    settledThenAgain((s, l) -> s.dead("q", l, null), Outcome.DEAD,
        (s, l) -> s.nack("q", l, Duration.ZERO), Outcome.DEAD);
  }

  @Test
  void anotherKindOfSettleAfterOneIsAConflict() {
    settledThenAgain((s, l) -> s.nack("q", l, Duration.ZERO), Outcome.RETRIED,
        (s, l) -> s.ack("q", l, false), Outcome.LEASE_NOT_FOUND);
    settledThenAgain((s, l) -> s.ack("q", l, false), Outcome.ACKED,
        (s, l) -> s.extend("q", l, Duration.ofSeconds(10)), Outcome.LEASE_NOT_FOUND);
    settledThenAgain((s, l) -> s.ack("q", l, false), Outcome.ACKED,
        (s, l) -> s.nack("q", l, Duration.ZERO), Outcome.LEASE_NOT_FOUND);
    settledThenAgain((s, l) -> s.defer("q", l, Duration.ZERO), Outcome.DEFERRED,
        (s, l) -> s.dead("q", l, null), Outcome.LEASE_NOT_FOUND);
    // The message the ack after a nack did not delete is still there, ready for the next one.
    assertThat(broker.stats("q").counts().ready()).isEqualTo(2);
  }
}
