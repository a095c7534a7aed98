package dev.wharf.model;

import dev.wharf.core.Publish;
import dev.wharf.store.ContentType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Every choice a run makes, from one seeded {@link Random}. The ranges are narrow on purpose: few
 * keys, short delays and TTLs next to the queues' leases, so that repeats, replacements, expiries
 * and last attempts come often.
 */
final class RandomInputs {
  private final Random random;
  private int bodies;

  RandomInputs(long seed) {
    random = new Random(seed);
  }

  <T> T pick(List<T> from) {
    return from.get(random.nextInt(from.size()));
  }

  boolean oneIn(int n) {
    return random.nextInt(n) == 0;
  }

  /** A percentile that picks the step's operation. */
  int operation() {
    return random.nextInt(100);
  }

  /** Mostly whole seconds, so that times often meet lease ends and TTLs exactly. */
  long clockStepMs() {
    return oneIn(4) ? random.nextInt(10_001) : 1000L * random.nextInt(11);
  }

  List<Publish> publishBatch() {
    int n = oneIn(4) ? 1 + random.nextInt(3) : 1;
    List<Publish> batch = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      batch.add(publish());
    }
    return batch;
  }

  private Publish publish() {
    Duration delay = switch (random.nextInt(4)) {
      case 0 -> null;
      case 1 -> Duration.ZERO;
      default -> Duration.ofSeconds(random.nextInt(9));
    };
    // Zero is "no TTL", which differs from null ("the queue's").
    Duration ttl = switch (random.nextInt(5)) {
      case 0, 1 -> null;
      case 2 -> Duration.ZERO;
      default -> Duration.ofSeconds(10 + random.nextInt(21));
    };
    String idempotencyKey = random.nextInt(10) < 3 ? "i" + random.nextInt(4) : null;
    String key = random.nextInt(10) < 4 ? "k" + random.nextInt(3) : null;
    byte[] body = ("\"m" + ++bodies + "\"").getBytes(StandardCharsets.UTF_8);
    return new Publish(ContentType.JSON, body, Map.of(), null, delay, ttl, idempotencyKey, key);
  }

  int receiveMax() {
    return 1 + random.nextInt(4);
  }

  /** Null: the queue's own. */
  Duration visibility() {
    return random.nextBoolean() ? null : Duration.ofSeconds(1 + random.nextInt(6));
  }

  int leasesPerSettle() {
    return oneIn(3) ? 1 + random.nextInt(3) : 1;
  }

  /** The settle's delay or extension; ignored by ack and dead. */
  long settleArgumentMs(LeaseAction action) {
    return switch (action) {
      case NACK, DEFER -> random.nextBoolean() ? 0 : 1000L * random.nextInt(6);
      case EXTEND -> 1000L * (1 + random.nextInt(15));
      default -> 0;
    };
  }

  /**
   * Mostly a lease that still holds its message; else one of those given last (often settled
   * already, so a repeat) or any given before (often stale).
   */
  String lease(List<String> current, List<String> given) {
    if (!current.isEmpty() && random.nextInt(10) < 7) {
      return pick(current);
    }
    int back = oneIn(3) ? random.nextInt(given.size())
        : Math.min(given.size() - 1, random.nextInt(4));
    return given.get(given.size() - 1 - back);
  }

  /** Null (redrive all) a third of the time; else mostly dead ids, some naming anything else. */
  List<String> redriveIds(List<String> dead, List<String> anyIds) {
    if (oneIn(3)) {
      return null;
    }
    List<String> ids = new ArrayList<>();
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      if (random.nextInt(10) < 6 && !dead.isEmpty()) {
        ids.add(pick(dead));
      } else {
        ids.add(anyIds.isEmpty() ? "no-such-id" : pick(anyIds));
      }
    }
    return ids;
  }
}
