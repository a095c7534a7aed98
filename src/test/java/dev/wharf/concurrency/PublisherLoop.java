package dev.wharf.concurrency;

import dev.wharf.core.Broker;
import dev.wharf.core.Publish;
import dev.wharf.store.ContentType;
import dev.wharf.store.PublishResult;
import dev.wharf.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A producer: single publishes and batches, some delayed, some with idempotency keys and upsert
 * keys drawn from small pools shared by every publisher, so repeats and races on one key happen.
 * Each message's payload is unique, so a payload read back names the publish that gave it.
 */
final class PublisherLoop implements Runnable {
  static final int IDEMPOTENCY_KEYS = 12;
  static final int UPSERT_KEYS = 6;
  private final String name;
  private final Random random;
  private final Broker broker;
  private final MutableClock clock;
  private final Ledger ledger;
  private final PauseGate gate;
  private final String queue;
  private final int calls;
  private int made;

  PublisherLoop(String name, long seed, Broker broker, MutableClock clock, Ledger ledger,
      PauseGate gate, String queue, int calls) {
    this.name = name;
    this.random = new Random(seed);
    this.broker = broker;
    this.clock = clock;
    this.ledger = ledger;
    this.gate = gate;
    this.queue = queue;
    this.calls = calls;
  }

  @Override
  public void run() {
    try {
      for (int i = 0; i < calls && gate.checkpoint(); i++) {
        publishOnce();
        gate.called();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      ledger.surprise(name + " failed: " + e);
    } finally {
      gate.finished();
    }
  }

  private void publishOnce() {
    int kind = random.nextInt(10);
    int count = switch (kind) {
      case 4, 5 -> 2 + random.nextInt(29);
      case 8 -> 2 + random.nextInt(7);
      default -> 1;
    };
    List<Publish> batch = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int shape = kind == 8 ? 4 + random.nextInt(6) : kind;
      String ikey = shape == 6 || shape == 9 ? "i" + random.nextInt(IDEMPOTENCY_KEYS) : null;
      String key = shape == 7 || shape == 9 ? "k" + random.nextInt(UPSERT_KEYS) : null;
      Duration delay = random.nextInt(4) == 0
          ? Duration.ofMillis(500 + random.nextInt(7_500)) : null;
      batch.add(message(name + "-" + made++, delay, ikey, key));
    }
    long before = clock.millis();
    long startTick = ledger.tick();
    List<PublishResult> results = broker.publish(queue, batch);
    long endTick = ledger.tick();
    long after = clock.millis();
    for (int i = 0; i < batch.size(); i++) {
      Publish p = batch.get(i);
      PublishResult r = results.get(i);
      ledger.published(new Published(r.id(), new String(p.payload(), StandardCharsets.UTF_8),
          p.key(), p.idempotencyKey(), p.delay() == null ? 0 : p.delay().toMillis(),
          r.duplicate(), r.replaced(), startTick, endTick, before, after, name));
    }
  }

  private static Publish message(String payload, Duration delay, String ikey, String key) {
    byte[] body = ("\"" + payload + "\"").getBytes(StandardCharsets.UTF_8);
    return new Publish(ContentType.JSON, body, Map.of(), null, delay, null, ikey, key);
  }
}
