package dev.wharf.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.wharf.app.ServerWarmup;
import dev.wharf.app.WharfApp;
import dev.wharf.loopback.HttpConn;
import dev.wharf.loopback.MiniHttp;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The run {@code bin/wharf} records its class-data archive from, once per build: a server on a
 * throwaway SQLite file and an ephemeral loopback port, the routes a worker and an operator use, a
 * message taken to the DLQ and back, then a clean stop. The JVM writes the classes this loaded to
 * the archive at exit; later starts map them instead of loading them from the jar, and a restart
 * after a crash is mostly such loading.
 *
 * <p>Each step goes through the real server and fails the run if the server does not answer as
 * expected, so a training that stopped exercising what it names is noticed ({@code
 * StartupTrainingTest}).
 */
public final class StartupTraining {
  private static final String QUEUE = "training";
  private static final String DLQ = "training.dlq";
  private static final ObjectMapper JSON = new ObjectMapper();

  private StartupTraining() {}

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true);
    System.exit(run(out));
  }

  /** Trains; says each step done on {@code log}. 0 when every step went as expected. */
  static int run(PrintWriter log) {
    Path dir;
    try {
      dir = Files.createTempDirectory("wharf-training");
    } catch (IOException e) {
      log.println("training: cannot make a temporary directory: " + e.getMessage());
      return 1;
    }
    try {
      Path config = dir.resolve("wharf.yaml");
      Files.writeString(config, config(dir));
      ServerWarmup.begin();
      try (WharfApp app = WharfApp.start(CliConfig.load(config, Map.of()))) {
        log.println("training: server on " + app.url());
        exercise(app.port(), log);
      }
      log.println("training: done");
      return 0;
    } catch (IOException | RuntimeException e) {
      log.println("training: failed: " + e.getMessage());
      return 1;
    } finally {
      deleteTree(dir);
    }
  }

  private static String config(Path dir) {
    return """
        server:
          host: 127.0.0.1
          port: 0
        storage:
          kind: sqlite
          path: %s
        queues:
          %s:
            max_attempts: 2
            dead_letter_queue: %s
          %s: {}
        """
        .formatted(dir.resolve("wharf.db"), QUEUE, DLQ, DLQ);
  }

  /**
   * Through a raw loopback connection rather than {@link WharfClient}: the JDK's HTTP client would
   * enter the archive too, and every server would map classes it never uses.
   */
  private static void exercise(int port, PrintWriter log) throws IOException {
    try (MiniHttp http = new MiniHttp(port, null)) {
      String data = "/v1/queues/" + QUEUE;
      call(http, "GET", "/healthz", null);
      call(http, "GET", "/readyz", null);

      String one = "{\"body\":{\"event\":\"invoice.paid\",\"amount\":4200},"
          + "\"headers\":{\"x-source\":\"training\"}}";
      call(http, "POST", data + "/messages", one);
      StringBuilder batch = new StringBuilder("{\"messages\":[");
      for (int i = 0; i < 10; i++) {
        batch.append(i == 0 ? "" : ",")
            .append("{\"body\":\"line ").append(i).append("\",\"content_type\":\"text\"}");
      }
      call(http, "POST", data + "/messages", batch.append("]}").toString());
      JsonNode received = call(http, "POST", data + "/receive", receive(11)).path("messages");
      expect(received.size() == 11, "receive gave " + received);
      call(http, "POST", data + "/ack", settle(received, null));
      log.println("training: published 11, received and acked them");

      call(http, "POST", data + "/messages", one);
      for (int attempt = 1; attempt <= 2; attempt++) {
        JsonNode got = call(http, "POST", data + "/receive", receive(1)).path("messages");
        expect(got.size() == 1, "attempt " + attempt + " received " + got);
        call(http, "POST", data + "/nack", settle(got, "training"));
      }
      JsonNode stats = call(http, "GET", data, null).path("stats");
      expect(stats.path("dead").asLong() == 1, "the queue's stats say " + stats);
      call(http, "GET", data + "/dlq?limit=10", null);
      JsonNode redriven = call(http, "POST", data + "/dlq/redrive", "{}");
      expect(redriven.path("redriven").asLong() == 1, "redrive gave " + redriven);
      log.println("training: nacked one until it was dead, and redrove it");

      call(http, "GET", "/v1/queues", null);
      call(http, "GET", data + "/messages?state=ready&limit=10", null);
      call(http, "POST", data + "/purge", "{}");
      call(http, "GET", "/metrics", null);
      log.println("training: listed the queues, purged one, read the metrics");
    }
  }

  /** One request; its answer's JSON (an empty object when it has none). */
  private static JsonNode call(MiniHttp http, String method, String path, String body)
      throws IOException {
    HttpConn.Response r =
        http.send(method, path, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    String text = new String(r.body(), StandardCharsets.UTF_8);
    expect(r.ok(), method + " " + path + " answered " + r.status() + ": " + text);
    if (!text.startsWith("{")) {
      return JSON.createObjectNode();
    }
    return JSON.readTree(text);
  }

  private static String receive(int max) {
    return "{\"max\":" + max + ",\"wait\":\"1s\"}";
  }

  private static String settle(JsonNode got, String reason) {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode leases = body.putArray("lease_ids");
    got.forEach(m -> leases.add(m.path("lease_id").asText()));
    if (reason != null) {
      body.put("reason", reason);
    }
    return body.toString();
  }

  private static void expect(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(StartupTraining::deleteQuietly);
    } catch (IOException | UncheckedIOException e) {
      // a temporary directory left behind is not worth failing the training for
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      // see deleteTree
    }
  }
}
