package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.MessageState;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A queue's depth by state is read at one moment: a batch that moves messages between states
 * (claims, nacks) is seen whole or not at all, never as counts that never were.
 */
class CountersSnapshotTest {
  private static final int READY = MessageState.READY.code();
  private static final int LEASED = MessageState.LEASED.code();
  private static final int MESSAGES = 10;

  @Test
  void movesBetweenStatesAreNeverSeenHalfWay() throws Exception {
    Counters counters = new Counters();
    counters.countedIn();
    counters.addState("q", READY, MESSAGES);
    AtomicBoolean done = new AtomicBoolean();
    AtomicLong odd = new AtomicLong(-1);
    Thread reader = Thread.ofPlatform().start(() -> {
      while (!done.get() && odd.get() < 0) {
        long[] s = counters.states("q");
        if (s[READY] + s[LEASED] != MESSAGES) {
          odd.set(s[READY] + s[LEASED]);
        }
      }
    });
    try {
      // What a claim of every message, then a nack of every lease, apply after their commits.
      for (int i = 0; i < 200_000 && odd.get() < 0; i++) {
        Counters.Delta claim = new Counters.Delta();
        Counters.Delta nack = new Counters.Delta();
        for (int m = 0; m < MESSAGES; m++) {
          claim.move("q", READY, null, "q", LEASED, null);
          nack.move("q", LEASED, null, "q", READY, null);
        }
        claim.applyTo(counters);
        nack.applyTo(counters);
      }
    } finally {
      done.set(true);
      reader.join();
    }
    assertThat(odd.get()).as("ready + leased seen other than the messages there are").isEqualTo(-1);
    assertThat(counters.states("q")).containsExactly(MESSAGES, 0, 0);
  }
}
