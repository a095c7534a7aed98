package dev.wharf.crash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.loopback.HttpConn;
import dev.wharf.loopback.MiniHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishers and consumers that keep working while the server is killed under them, writing
 * every outcome they learn (or fail to learn) into the {@link Ledger}.
 */
final class CrashClients {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int POISON = 25;
  private final ServerSlot slot;
  private final Ledger ledger;
  private final String queue;
  private final List<Thread> threads = new ArrayList<>();
  /** Answers no client should ever get (4xx to a well-formed request); each is a failure. */
  final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
  private final AtomicLong batches = new AtomicLong();
  private volatile boolean stopping;

  CrashClients(ServerSlot slot, Ledger ledger, String queue) {
    this.slot = slot;
    this.ledger = ledger;
    this.queue = queue;
  }

  void start(int publishers, int consumers) {
    for (int i = 0; i < publishers; i++) {
      threads.add(Thread.ofVirtual().name("crash-publisher-" + i).start(() -> loop(this::publish)));
    }
    for (int i = 0; i < consumers; i++) {
      threads.add(Thread.ofVirtual().name("crash-consumer-" + i).start(() -> loop(this::consume)));
    }
  }

  void stop() throws InterruptedException {
    stopping = true;
    for (Thread t : threads) {
      t.join();
    }
  }

  private interface Step {
    void run(HttpConn conn) throws IOException;
  }

  private void loop(Step step) {
    MiniHttp conn = null;
    int connPort = 0;
    try {
      while (!stopping) {
        int port = slot.await(200);
        if (port == 0) {
          continue;
        }
        if (conn == null || connPort != port) {
          if (conn != null) {
            conn.close();
          }
          conn = new MiniHttp(port, null, 16 * 1024);
          connPort = port;
        }
        try {
          step.run(conn);
        } catch (IOException e) {
          // The server died under this request; the step has written down what is unknown.
          // A short pause keeps a dead port from being hammered until the slot goes down.
          Thread.sleep(5);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (conn != null) {
        conn.close();
      }
    }
  }

  private void publish(HttpConn conn) throws IOException {
    int count = 1 + ThreadLocalRandom.current().nextInt(5);
    long first = ledger.nextN.getAndAdd(count);
    List<Long> ns = new ArrayList<>(count);
    StringBuilder body = new StringBuilder("{\"messages\":[");
    for (int i = 0; i < count; i++) {
      ns.add(first + i);
      body.append(i == 0 ? "" : ",").append("{\"body\":{\"n\":").append(first + i).append("}}");
    }
    body.append("]}");
    HttpConn.Response r;
    try {
      r = conn.send("POST", "/v1/queues/" + queue + "/messages", bytes(body.toString()));
    } catch (IOException e) {
      ledger.publishUnknown.addAll(ns);
      throw e;
    }
    if (r.ok()) {
      ledger.published.addAll(ns);
    } else {
      // 503 unavailable may be retried: it had no effect, or may have; either way unknown.
      ledger.publishUnknown.addAll(ns);
      if (r.status() < 500) {
        unexpected.add("publish: " + describe(r));
      }
    }
  }

  private void consume(HttpConn conn) throws IOException {
    long asked = System.nanoTime();
    HttpConn.Response r =
        conn.send("POST", "/v1/queues/" + queue + "/receive", bytes("{\"max\":10,\"wait\":\"1s\"}"));
    if (!r.ok()) {
      if (r.status() < 500) {
        unexpected.add("receive: " + describe(r));
      }
      return;
    }
    Map<String, Long> byLease = deliveries(r, asked, queue, ledger);
    // Every POISON-th message is never acked: it uses up its attempts and moves to the DLQ.
    byLease.values().removeIf(n -> n % POISON == 0);
    if (byLease.isEmpty()) {
      return;
    }
    // Now and then a consumer "dies" holding its batch: the leases must run out, not lose it.
    if (batches.incrementAndGet() % 20 == 0) {
      ledger.abandoned.addAndGet(byLease.size());
      return;
    }
    HttpConn.Response a;
    try {
      a = conn.send("POST", "/v1/queues/" + queue + "/ack", ackBody(byLease.keySet()));
    } catch (IOException e) {
      ledger.ackUnknown.addAll(byLease.values());
      throw e;
    }
    long confirmed = System.nanoTime();
    if (a.status() == 200 || a.status() == 409) {
      for (JsonNode result : JSON.readTree(a.body()).path("results")) {
        String lease = result.path("lease_id").asText();
        Long n = byLease.get(lease);
        if (n != null && result.path("outcome").asText().equals("acked")) {
          ledger.confirmAck(n, lease, confirmed);
        } else {
          ledger.ackConflicts.incrementAndGet();
        }
      }
    } else {
      ledger.ackUnknown.addAll(byLease.values());
      if (a.status() < 500) {
        unexpected.add("ack: " + describe(a));
      }
    }
  }

  /** Records the messages of a receive answer; returns message number by lease id. */
  static Map<String, Long> deliveries(HttpConn.Response r, long asked, String queue, Ledger ledger)
      throws IOException {
    Map<String, Long> byLease = new HashMap<>();
    for (JsonNode m : JSON.readTree(r.body()).path("messages")) {
      long n = m.path("body").path("n").asLong();
      String lease = m.path("lease_id").asText();
      ledger.deliveries.add(new Ledger.Delivery(n, lease, asked, queue));
      byLease.put(lease, n);
    }
    return byLease;
  }

  static byte[] ackBody(Iterable<String> leases) {
    StringBuilder sb = new StringBuilder("{\"lease_ids\":[");
    boolean first = true;
    for (String l : leases) {
      sb.append(first ? "\"" : ",\"").append(l).append('"');
      first = false;
    }
    return bytes(sb.append("]}").toString());
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String describe(HttpConn.Response r) {
    return r.status() + " " + new String(r.body(), StandardCharsets.UTF_8);
  }
}
