package dev.wharf.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.wharf.app.ServerWarmup;
import dev.wharf.app.WharfApp;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The run {@code bin/wharf} records JDK 25's ahead-of-time cache from, once per build: a server on
 * a throwaway SQLite file and an ephemeral loopback port, the data routes a worker uses, a message
 * taken to the DLQ and back, and the client commands, then a clean stop. The JVM writes what this
 * loaded, linked and profiled to the cache at exit; later starts map it instead of loading the
 * same classes from the jar, and a restart after a crash is mostly such loading.
 *
 * <p>Each step goes through the real server and fails the run if the server does not answer as
 * expected, so a training that stopped exercising what it names is noticed ({@code
 * StartupTrainingTest}).
 */
public final class StartupTraining {
  private static final String QUEUE = "training";
  private static final String DLQ = "training.dlq";

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
        exercise(app.url(), log);
      }
      log.println("training: done");
      return 0;
    } catch (CliException | IllegalStateException | IOException e) {
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

  private static void exercise(String url, PrintWriter log) {
    WharfClient client = new WharfClient(url, null);
    String data = "/v1/queues/" + QUEUE;
    client.get("/healthz");
    client.get("/readyz");

    ObjectNode one = WharfClient.JSON.createObjectNode();
    one.putObject("body").put("event", "invoice.paid").put("amount", 4200);
    one.putObject("headers").put("x-source", "training");
    client.post(data + "/messages", one);
    ObjectNode batch = WharfClient.JSON.createObjectNode();
    ArrayNode messages = batch.putArray("messages");
    for (int i = 0; i < 10; i++) {
      messages.addObject().put("body", "line " + i).put("content_type", "text");
    }
    client.post(data + "/messages", batch);
    JsonNode received = client.post(data + "/receive", receive(11));
    expect(received.path("messages").size() == 11, "receive gave " + received);
    settle(client, data + "/ack", received.path("messages"), null);
    log.println("training: published 11, received and acked them");

    client.post(data + "/messages", one);
    for (int attempt = 1; attempt <= 2; attempt++) {
      JsonNode got = client.post(data + "/receive", receive(1)).path("messages");
      expect(got.size() == 1, "attempt " + attempt + " received " + got);
      settle(client, data + "/nack", got, "training");
    }
    long dead = client.get("/v1/queues/" + DLQ).path("stats").path("ready").asLong();
    expect(dead == 1, "the DLQ holds " + dead + " messages, not 1");
    log.println("training: nacked one until it was dead");

    cli(log, "queues", "dlq", QUEUE, "--url", url);
    cli(log, "queues", "retry", QUEUE, "--url", url);
    cli(log, "queues", "list", "--url", url);
    cli(log, "queues", "inspect", QUEUE, "--url", url);
    cli(log, "queues", "peek", QUEUE, "--url", url);
    cli(log, "publish", QUEUE, "--url", url, "--data", "{\"event\":\"training\"}");
    cli(log, "queues", "drain", QUEUE, "--force", "--url", url);
    client.get("/metrics");
  }

  private static ObjectNode receive(int max) {
    return WharfClient.JSON.createObjectNode().put("max", max).put("wait", "1s");
  }

  private static void settle(WharfClient client, String path, JsonNode got, String reason) {
    ObjectNode body = WharfClient.JSON.createObjectNode();
    ArrayNode leases = body.putArray("lease_ids");
    got.forEach(m -> leases.add(m.path("lease_id").asText()));
    if (reason != null) {
      body.put("reason", reason);
    }
    client.post(path, body);
  }

  /** A client command as a user runs it, its output kept out of the log. */
  private static void cli(PrintWriter log, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Main.run(args, Map.of(), new ByteArrayInputStream(new byte[0]), new PrintWriter(out),
            new PrintWriter(err));
    expect(code == 0, String.join(" ", args) + " exited " + code + ": " + err);
    log.println("training: wharf " + String.join(" ", args.length > 2 ? new String[] {args[0],
        args[1]} : args));
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
