package dev.wharf.bench;

import dev.wharf.loopback.HttpConn;
import java.io.IOException;
import java.util.List;

/** {@code publish} and {@code publish-batch}: N clients publishing 1 KB messages flat out. */
final class PublishScenario {
  static final int BATCH = 100;

  private PublishScenario() {}

  static Result run(Target target, Options o, boolean batch) throws IOException {
    String name = batch ? "publish-batch" : "publish";
    String queue = target.createQueue(name);
    try {
      Tally all = measure(target, queue, o.clients(), o.warmup(), o.seconds(), batch);
      Result r = new Result(name).put("clients", o.clients()).put("seconds", o.seconds());
      r.line(String.format("%d clients, %s per request, %.0f s measured after %.0f s warm-up",
          o.clients(), batch ? BATCH + " messages" : "1 message", o.seconds(), o.warmup()));
      if (batch) {
        r.put("messages_per_request", BATCH);
      }
      return r.rates("publish", all, o.seconds());
    } finally {
      target.deleteQueue(queue);
    }
  }

  /** Publishes flat out into {@code queue}; also used to find the peak rate for latency. */
  static Tally measure(
      Target target, String queue, int clients, double warmup, double seconds, boolean batch) {
    String path = "/v1/queues/" + queue + "/messages";
    int perRequest = batch ? BATCH : 1;
    byte[] body = batch ? Payloads.publishBatch(BATCH, 0) : Payloads.publish(0);
    Phase phase = new Phase(warmup, seconds);
    if (target.multiplexed()) {
      return MuxClients.post(
          target.port(), target.token(), clients, phase, path, body, perRequest);
    }
    List<Workers.Worker> workers =
        Workers.run(target, clients, phase, () -> publisher(phase, path, body, perRequest));
    return Tally.merge(Workers.tallies(workers));
  }

  /** A client that posts the same publish request in a loop. */
  static Workers.Worker publisher(Phase phase, String path, byte[] body, int perRequest) {
    return publisher(phase, path, body, perRequest, new Backlog(0));
  }

  /** A publisher that waits for room in {@code backlog} before each request. */
  static Workers.Worker publisher(
      Phase phase, String path, byte[] body, int perRequest, Backlog backlog) {
    return new Workers.Worker() {
      @Override
      void once(HttpConn conn) throws IOException {
        if (!backlog.take(phase, perRequest)) {
          return;
        }
        long started = System.nanoTime();
        HttpConn.Response r = conn.send("POST", path, body);
        long ended = System.nanoTime();
        if (!r.ok()) {
          backlog.unused(perRequest);
          tally.error("http " + r.status());
          return;
        }
        if (phase.measuring(started)) {
          tally.ok(started, ended, perRequest);
        }
      }
    };
  }
}
