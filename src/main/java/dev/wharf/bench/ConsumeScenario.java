package dev.wharf.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.loopback.HttpConn;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code consume}: consumers receive batches of B and ack them while publishers keep publishing
 * batches of B (single publishes when B is 1), so the figure is a steady state, not a drain.
 * Publishers wait while the backlog (published, not yet acked) is over its bound, so in the
 * steady state they publish as fast as consumers consume; with a bound of 0 they never wait, the
 * backlog grows for the whole run, and consumers share the server with faster publishers.
 */
final class ConsumeScenario {
  private ConsumeScenario() {}

  static Result run(Target target, Options o, int batch) throws IOException {
    String queue = target.createQueue("consume");
    String messages = "/v1/queues/" + queue + "/messages";
    String receive = "/v1/queues/" + queue + "/receive";
    String ack = "/v1/queues/" + queue + "/ack";
    byte[] publishBody = batch == 1 ? Payloads.publish(0) : Payloads.publishBatch(batch, 0);
    byte[] receiveBody = Payloads.receive(batch, "1s");
    int publishers = o.publishers() > 0 ? o.publishers() : Math.max(1, o.clients() / 2);
    int consumers = o.consumers() > 0 ? o.consumers() : Math.max(1, o.clients() / 2);
    long bound = o.backlog() >= 0 ? o.backlog() : defaultBacklog(publishers, consumers, batch);
    Backlog backlog = new Backlog(bound);
    try {
      Phase phase = new Phase(o.warmup(), o.seconds());
      Tallies t =
          target.multiplexed()
              ? onTwoThreads(target, phase, publishers, consumers, batch, backlog,
                  new MuxClients.Request(messages, publishBody),
                  new MuxClients.Request(receive, receiveBody), ack)
              : onThreadEach(target, phase, publishers, consumers, batch, backlog, messages,
                  publishBody, receive, receiveBody, ack);
      Result r = new Result("consume-batch-" + batch)
          .put("batch", batch).put("publishers", publishers).put("consumers", consumers)
          .put("seconds", o.seconds()).put("backlog_bound", bound);
      r.line(String.format("%d publishers, %d consumers, batch %d, backlog bound %s, %.0f s"
          + " measured after %.0f s warm-up", publishers, consumers, batch,
          bound == 0 ? "none" : bound + " messages", o.seconds(), o.warmup()));
      r.rates("publish", t.published(), o.seconds());
      r.rates("receive", t.received(), o.seconds());
      r.rates("ack", t.acked(), o.seconds());
      r.put("consumed_msg_per_s", Result.round(t.acked().messages / o.seconds()));
      JsonNode stats = target.stats(queue);
      if (stats != null) {
        long left = stats.path("ready").asLong() + stats.path("leased").asLong();
        r.put("backlog_at_end", left);
        r.line("backlog at end: " + left + " messages");
      }
      return r;
    } finally {
      target.deleteQueue(queue);
    }
  }

  private record Tallies(Tally published, Tally received, Tally acked) {}

  /** Publishers, receives, acks: a blocking client thread each. */
  private static Tallies onThreadEach(Target target, Phase phase, int publishers, int consumers,
      int batch, Backlog backlog, String messages, byte[] publishBody, String receive,
      byte[] receiveBody, String ack) {
    AtomicReference<Tally> published = new AtomicReference<>();
    Thread pubThread =
        target.start("bench-publishers", () -> published.set(Tally.merge(Workers.tallies(
            Workers.run(target, publishers, phase,
                () -> PublishScenario.publisher(
                    phase, messages, publishBody, batch, backlog))))));
    List<Consumer> cons =
        Workers.run(target, consumers, phase,
            () -> new Consumer(phase, receive, ack, receiveBody, backlog));
    Workers.joinAll(List.of(pubThread));
    return new Tallies(
        published.get(),
        Tally.merge(Workers.tallies(cons)),
        Tally.merge(cons.stream().map(c -> c.acks).toList()));
  }

  /**
   * Publishers, receives, acks: the publishers' connections on one thread, the consumers' on
   * another.
   */
  private static Tallies onTwoThreads(Target target, Phase phase, int publishers, int consumers,
      int batch, Backlog backlog, MuxClients.Request publish, MuxClients.Request receive,
      String ack) {
    Tally published = new Tally();
    Tally received = new Tally();
    Tally acked = new Tally();
    List<MuxClients.Conversation> pubs = new ArrayList<>();
    for (int i = 0; i < publishers; i++) {
      pubs.add(new MuxPublisher(phase, publish, batch, backlog, published));
    }
    List<MuxClients.Conversation> cons = new ArrayList<>();
    for (int i = 0; i < consumers; i++) {
      cons.add(new MuxConsumer(phase, receive, ack, backlog, received, acked));
    }
    Thread pubThread = target.start("bench-publishers",
        () -> MuxClients.run(target.port(), target.token(), phase, pubs));
    MuxClients.run(target.port(), target.token(), phase, cons);
    Workers.joinAll(List.of(pubThread));
    return new Tallies(published, received, acked);
  }

  /** Receives, then acks what it got, then receives again. */
  static final class MuxConsumer implements MuxClients.Conversation {
    private final Phase phase;
    private final MuxClients.Request receive;
    private final String ackPath;
    private final Backlog backlog;
    private final Tally received;
    private final Tally acked;
    private Received toAck;

    MuxConsumer(Phase phase, MuxClients.Request receive, String ackPath, Backlog backlog,
        Tally received, Tally acked) {
      this.phase = phase;
      this.receive = receive;
      this.ackPath = ackPath;
      this.backlog = backlog;
      this.received = received;
      this.acked = acked;
    }

    @Override
    public MuxClients.Request next() {
      return toAck == null
          ? receive
          : new MuxClients.Request(ackPath, Payloads.ack(toAck.leaseIds()));
    }

    @Override
    public void answered(MuxClients.Request sent, long startedNs, long endedNs, int status,
        byte[] body) throws IOException {
      if (sent == receive) {
        if (status < 200 || status > 299) {
          received.error("http " + status);
          return;
        }
        Received got = Received.parse(body);
        if (got.size() == 0) {
          return; // an empty long-poll says nothing about receive latency
        }
        if (phase.measuring(startedNs)) {
          received.ok(startedNs, endedNs, got.size());
        }
        toAck = got;
        return;
      }
      int n = ackedBy(status, body, toAck.size());
      toAck = null;
      if (status < 200 || status > 299) {
        acked.error("http " + status);
      }
      backlog.acked(n);
      if (n > 0 && phase.measuring(startedNs)) {
        acked.ok(startedNs, endedNs, n);
      }
    }

    @Override
    public void failed(String kind) {
      received.error(kind);
      toAck = null; // its leases run out and the messages come back
    }
  }

  /**
   * Enough that consumers rarely find the queue empty: every client's batch in flight twice over,
   * and for small batches at least 16 messages a client (with 128 in all, batch-1 consumers spent
   * a third of their polls waiting for publishes still on their way to disk).
   */
  static long defaultBacklog(int publishers, int consumers, int batch) {
    return 2L * (publishers + consumers) * Math.max(batch, 16);
  }

  /** Receives (long-polling up to 1 s) and acks what it got; the tally counts receives. */
  private static final class Consumer extends Workers.Worker {
    final Tally acks = new Tally();
    private final Phase phase;
    private final String receive;
    private final String ack;
    private final byte[] receiveBody;
    private final Backlog backlog;

    Consumer(Phase phase, String receive, String ack, byte[] receiveBody, Backlog backlog) {
      this.phase = phase;
      this.receive = receive;
      this.ack = ack;
      this.receiveBody = receiveBody;
      this.backlog = backlog;
    }

    @Override
    void once(HttpConn conn) throws IOException {
      long started = System.nanoTime();
      HttpConn.Response r = conn.send("POST", receive, receiveBody);
      long ended = System.nanoTime();
      if (!r.ok()) {
        tally.error("http " + r.status());
        return;
      }
      Received got = Received.parse(r.body());
      if (got.size() == 0) {
        return; // an empty long-poll says nothing about receive latency
      }
      if (phase.measuring(started)) {
        tally.ok(started, ended, got.size());
      }
      long ackStarted = System.nanoTime();
      HttpConn.Response a = conn.send("POST", ack, Payloads.ack(got.leaseIds()));
      long ackEnded = System.nanoTime();
      int n = ackedBy(a.status(), a.body(), got.size());
      if (!a.ok()) {
        acks.error("http " + a.status());
      }
      backlog.acked(n);
      if (n > 0 && phase.measuring(ackStarted)) {
        acks.ok(ackStarted, ackEnded, n);
      }
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How many of an ack's {@code sent} leases it acked: all on a 2xx; on a 409 (some leases no
   * longer held) those whose outcome says so, which count and free their backlog room as any.
   */
  static int ackedBy(int status, byte[] body, int sent) {
    if (status >= 200 && status <= 299) {
      return sent;
    }
    if (status != 409 || body == null) {
      return 0;
    }
    try {
      int n = 0;
      for (JsonNode r : JSON.readTree(body).path("results")) {
        if (r.path("outcome").asText().equals("acked")) {
          n++;
        }
      }
      return n;
    } catch (IOException e) {
      return 0;
    }
  }
}
