package dev.wharf.model;

import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.ContentType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * Every choice a run makes, from one seeded {@link Random}. The ranges are narrow on purpose: few
 * keys, short delays and TTLs next to the queues' leases, so that repeats, replacements, expiries
 * and last attempts come often.
 */
final class RandomInputs {
  private final Random random;
  private final RandomContent content;

  RandomInputs(long seed) {
    random = new Random(seed);
    content = new RandomContent(random);
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
    ContentType type = content.type();
    return new Publish(type, content.payload(type), content.headers(), content.metadata(), delay,
        ttl, idempotencyKey, key);
  }

  /**
   * A change of some of a published queue's settings. Values are few and near the others', so
   * that refusals (a delay as long as the TTL, a lease over its maximum, a DLQ loop) come too;
   * the DLQs named are the queue's own, another's, one that does not exist yet, another
   * published queue, or none.
   */
  QueueSettingsPatch settingsPatch(String queue) {
    Duration visibility = oneIn(3) ? Duration.ofSeconds(2 + random.nextInt(5)) : null;
    Duration maxVisibility = oneIn(5)
        ? pick(List.of(Duration.ofSeconds(4), Duration.ofSeconds(8), Duration.ofHours(12)))
        : null;
    Integer maxAttempts = oneIn(3) ? random.nextInt(5) : null;
    Optional<String> dlq = !oneIn(3) ? null : switch (random.nextInt(6)) {
      case 0 -> Optional.empty();
      case 1 -> Optional.of(queue + ".dlq");
      case 2 -> Optional.of(queue + ".dlq2");
      case 3 -> Optional.of(pick(List.of("a", "b", "c")));
      default -> Optional.of(pick(List.of("a.dlq", "b.dlq")));
    };
    Duration delay = oneIn(4) ? Duration.ofSeconds(random.nextInt(3)) : null;
    Optional<Duration> ttl = !oneIn(4) ? null : switch (random.nextInt(4)) {
      case 0 -> Optional.empty();
      case 1 -> Optional.of(Duration.ZERO);
      default -> Optional.of(Duration.ofSeconds(1 + random.nextInt(30)));
    };
    return new QueueSettingsPatch(visibility, maxVisibility, maxAttempts, dlq, delay, ttl, null);
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
