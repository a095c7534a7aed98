package dev.wharf.bench;

import dev.wharf.loopback.HttpConn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code fill}: publishes N messages (batches of 100, 1 KB each) into a named queue and leaves
 * them there, for the checks that need a deep queue: heap growth, restart time after kill -9.
 * The queue is created with default settings when it does not exist. Bounded to 10 minutes.
 */
final class FillScenario {
  private static final double MAX_SECONDS = 600;

  private FillScenario() {}

  static Result run(Target target, Options o, String queue, long messages) throws IOException {
    try (HttpConn c = target.conn()) {
      HttpConn.Response r =
          c.send("PUT", "/v1/queues/" + queue, "{}".getBytes(StandardCharsets.UTF_8));
      if (!r.ok()) {
        throw new IOException("creating queue " + queue + ": " + Target.describe(r));
      }
    }
    String path = "/v1/queues/" + queue + "/messages";
    byte[] body = Payloads.publishBatch(PublishScenario.BATCH, 0);
    AtomicLong requestsLeft = new AtomicLong(Math.ceilDiv(messages, PublishScenario.BATCH));
    Phase phase = new Phase(0, MAX_SECONDS);
    long started = System.nanoTime();
    List<Workers.Worker> workers =
        Workers.run(target, o.clients(), phase, () -> new Workers.Worker() {
          @Override
          void once(HttpConn conn) throws IOException {
            if (requestsLeft.getAndDecrement() <= 0) {
              phase.stop();
              return;
            }
            long sent = System.nanoTime();
            HttpConn.Response r = conn.send("POST", path, body);
            if (r.ok()) {
              tally.ok(sent, System.nanoTime(), PublishScenario.BATCH);
            } else {
              requestsLeft.incrementAndGet(); // this batch is still to be published
              tally.error("http " + r.status());
              Workers.pause(20);
            }
          }
        });
    double seconds = (System.nanoTime() - started) / 1e9;
    Tally all = Tally.merge(Workers.tallies(workers));
    Result r = new Result("fill").put("queue", queue).put("clients", o.clients())
        .put("seconds", Result.round(seconds));
    r.line(String.format("%d messages into %s in %.1f s by %d clients (%d per request); the queue"
        + " is left in place", all.messages, queue, seconds, o.clients(), PublishScenario.BATCH));
    return r.rates("publish", all, seconds);
  }
}
