package dev.wharf.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The load shape shared by the PostgreSQL benchmarks, so Wharf and the naive SKIP LOCKED queue
 * are driven identically: N publisher threads publishing batches, N consumer threads receiving a
 * batch and acknowledging each message, 1 KB payloads, for a fixed time.
 */
final class PgBenchLoad {
  static final int PAYLOAD_BYTES = 1024;

  /** One publisher's connection to the queue; {@code publish} writes {@code n} messages. */
  interface Publisher extends AutoCloseable {
    void publish(int n) throws Exception;

    @Override
    default void close() throws Exception {}
  }

  /** One consumer; {@code consume} receives a batch, acks it and returns how many it handled. */
  interface Consumer extends AutoCloseable {
    int consume() throws Exception;

    @Override
    default void close() throws Exception {}
  }

  interface Factory<T> {
    T open() throws Exception;
  }

  record Rates(double published, double consumed, double seconds) {
    @Override
    public String toString() {
      return String.format("publish %,.0f msg/s, receive+ack %,.0f msg/s over %.1f s",
          published, consumed, seconds);
    }
  }

  private PgBenchLoad() {}

  static byte[] payload() {
    byte[] b = new byte[PAYLOAD_BYTES];
    ThreadLocalRandom.current().nextBytes(b);
    return b;
  }

  /**
   * Runs publishers and consumers together for {@code time}. With {@code drain}, consumers stop
   * early once the queue is empty for all of them (a consume-only phase).
   */
  static Rates run(int publishers, Factory<Publisher> pub, int batch, int consumers,
      Factory<Consumer> con, Duration time, boolean drain) throws Exception {
    LongAdder published = new LongAdder();
    LongAdder consumed = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger idle = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> errors = new ArrayList<>();
    long start = System.nanoTime();
    long end = start + time.toNanos();
    for (int i = 0; i < publishers; i++) {
      threads.add(Thread.ofPlatform().name("bench-pub-" + i).start(() -> {
        try (Publisher p = pub.open()) {
          while (System.nanoTime() < end) {
            p.publish(batch);
            published.add(batch);
          }
        } catch (Throwable t) {
          synchronized (errors) {
            errors.add(t);
          }
        }
      }));
    }
    for (int i = 0; i < consumers; i++) {
      threads.add(Thread.ofPlatform().name("bench-con-" + i).start(() -> {
        boolean wasIdle = false;
        try (Consumer c = con.open()) {
          while (System.nanoTime() < end && !stop.get()) {
            int n = c.consume();
            consumed.add(n);
            if (drain) {
              if (n == 0 && !wasIdle) {
                wasIdle = true;
                if (idle.incrementAndGet() == consumers) {
                  stop.set(true);
                }
              } else if (n > 0 && wasIdle) {
                wasIdle = false;
                idle.decrementAndGet();
              }
            }
          }
        } catch (Throwable t) {
          synchronized (errors) {
            errors.add(t);
          }
        }
      }));
    }
    long last = start;
    for (Thread t : threads) {
      t.join();
    }
    last = System.nanoTime();
    if (!errors.isEmpty()) {
      Exception e = new Exception("benchmark worker failed", errors.get(0));
      errors.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
    double secs = (last - start) / 1e9;
    return new Rates(published.sum() / secs, consumed.sum() / secs, secs);
  }

  /** {@code key=value} arguments with defaults. */
  static Map<String, String> args(String[] argv, Map<String, String> defaults) {
    java.util.HashMap<String, String> out = new java.util.HashMap<>(defaults);
    for (String a : argv) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("arguments are key=value, got " + a);
      }
      out.put(a.substring(0, eq).replaceFirst("^--", ""), a.substring(eq + 1));
    }
    return out;
  }
}
