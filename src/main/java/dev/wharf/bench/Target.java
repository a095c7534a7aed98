package dev.wharf.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.loopback.HttpConn;
import dev.wharf.loopback.MiniHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/** The server under test: how to reach it, and the queue management the scenarios need. */
final class Target {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final int port;
  private final String token;
  private final boolean jdkClient;
  private final boolean multiplexed;
  private final boolean virtualThreads;

  Target(int port, String token, boolean jdkClient, boolean multiplexed, boolean virtualThreads) {
    this.port = port;
    this.token = token;
    this.jdkClient = jdkClient;
    this.multiplexed = multiplexed;
    this.virtualThreads = virtualThreads;
  }

  /** Whether flat-out publishers share one thread and a selector ({@link MuxClients}). */
  boolean multiplexed() {
    return multiplexed;
  }

  String token() {
    return token;
  }

  /**
   * Starts a client thread. Platform threads by default: a blocking read on one is a single
   * system call, where a virtual thread's goes through the poller (register, park, wake, read
   * again), which measured twice the client CPU per request. The thousands of idle long-polls use
   * virtual threads whatever this says.
   */
  Thread start(String name, Runnable body) {
    Thread.Builder b = virtualThreads ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
    return b.name(name).start(body);
  }

  int port() {
    return port;
  }

  HttpConn conn() {
    return jdkClient ? new JdkHttp(port, token) : new MiniHttp(port, token);
  }

  /** A raw socket connection whatever the client choice (idle polls hold thousands of them). */
  MiniHttp socketConn() {
    return new MiniHttp(port, token);
  }

  /** Creates a fresh queue {@code bench-<scenario>-<random>}; returns its messages path prefix. */
  String createQueue(String scenario) throws IOException {
    String name =
        "bench-" + scenario + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
    // Unlimited attempts and a generous lease: the bench measures throughput, not redelivery.
    byte[] settings =
        "{\"visibility_timeout\":\"60s\",\"max_attempts\":0}".getBytes(StandardCharsets.UTF_8);
    try (HttpConn c = conn()) {
      HttpConn.Response r = c.send("PUT", "/v1/queues/" + name, settings);
      if (!r.ok()) {
        throw new IOException("creating queue " + name + ": " + describe(r));
      }
    }
    return name;
  }

  void deleteQueue(String name) {
    try (HttpConn c = conn()) {
      HttpConn.Response r = c.send("DELETE", "/v1/queues/" + name, null);
      if (!r.ok()) {
        System.err.println("warning: deleting queue " + name + ": " + describe(r));
      }
    } catch (IOException e) {
      System.err.println("warning: deleting queue " + name + ": " + e);
    }
  }

  /** The queue's {@code stats} object, or null when it cannot be read. */
  JsonNode stats(String name) {
    try (HttpConn c = conn()) {
      HttpConn.Response r = c.send("GET", "/v1/queues/" + name, null);
      return r.ok() ? JSON.readTree(r.body()).path("stats") : null;
    } catch (IOException e) {
      return null;
    }
  }

  static String describe(HttpConn.Response r) {
    String body = new String(r.body(), StandardCharsets.UTF_8);
    return r.status() + " " + (body.length() > 300 ? body.substring(0, 300) + "…" : body);
  }
}
