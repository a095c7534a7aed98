package dev.wharf.model;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * The last operations of one seed's run, so that a failure says how Wharf got to where it
 * disagrees with the model, and how to run that seed again.
 */
final class Trace {
  static final int KEPT = 40;

  private final long seed;
  private final InstantSource clock;
  private final long start;
  private final ArrayDeque<String> last = new ArrayDeque<>();
  private int step;

  Trace(long seed, InstantSource clock) {
    this.seed = seed;
    this.clock = clock;
    this.start = clock.millis();
  }

  void step(int n) {
    step = n;
  }

  void add(String operation) {
    if (last.size() == KEPT) {
      last.removeFirst();
    }
    last.addLast(String.format("%4d  t=%7d  %s", step, clock.millis() - start, operation));
  }

  void expect(Object model, Object wharf, String what) {
    if (!Objects.equals(model, wharf)) {
      throw discrepancy(what + "\n  model: " + model + "\n  wharf: " + wharf);
    }
  }

  AssertionError discrepancy(String what) {
    StringBuilder b = new StringBuilder()
        .append("Wharf disagrees with the model at seed ").append(seed)
        .append(", step ").append(step).append(": ").append(what).append('\n')
        .append("Run it again: -Dtest=").append(BrokerMatchesModelTest.class.getSimpleName())
        .append(" -D").append(BrokerMatchesModelTest.FIRST_SEED).append('=').append(seed)
        .append(" -D").append(BrokerMatchesModelTest.SEEDS).append("=1")
        .append(" -D").append(BrokerMatchesModelTest.STEPS).append('=').append(step).append('\n')
        .append("Last ").append(last.size())
        .append(" operations (step, ms since ").append(Instant.ofEpochMilli(start))
        .append("):\n");
    last.forEach(line -> b.append(line).append('\n'));
    return new AssertionError(b.toString());
  }
}
