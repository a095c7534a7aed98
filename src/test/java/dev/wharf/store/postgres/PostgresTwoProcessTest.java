package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Wharf servers in two child JVMs on one PostgreSQL schema, driven over the native HTTP API:
 * a publish on one wakes a long-poll on the other, and a node killed with SIGKILL while holding
 * leases loses nothing: the survivor takes the reapers over and redelivers.
 */
class PostgresTwoProcessTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LISTENING = Pattern.compile("listening on http://[^:]+:(\\d+)");
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<Process> children = new ArrayList<>();
  @TempDir Path dir;
  private PostgresSettings settings;
  private Path config;

  @BeforeEach
  void setUp() throws IOException {
    settings = TestDatabase.freshSchema(4);
    config = dir.resolve("wharf.yaml");
    Files.writeString(config, """
        server:
          host: 127.0.0.1
          port: 0
        storage:
          kind: postgres
          url: "%s"
          pool: 4
        queues:
          jobs:
            visibility_timeout: 1s
            max_attempts: 5
        """.formatted(settings.url()));
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    for (Process p : children) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    TestDatabase.dropSchema(TestDatabase.schemaOf(settings));
  }

  /** Starts {@code wharf serve} in a child JVM and returns its base URL once it listens. */
  private String serve() throws Exception {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process p = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp", cp,
        "dev.wharf.cli.Main", "serve", "-c", config.toString())
        .redirectErrorStream(true)
        .start();
    children.add(p);
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> port = CompletableFuture.supplyAsync(() -> {
      try {
        String line;
        StringBuilder seen = new StringBuilder();
        while ((line = out.readLine()) != null) {
          Matcher m = LISTENING.matcher(line);
          if (m.find()) {
            return m.group(1);
          }
          seen.append(line).append('\n');
        }
        throw new IllegalStateException("server exited before listening:\n" + seen);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    String base = "http://127.0.0.1:" + port.get(60, TimeUnit.SECONDS);
    // Keep draining its output so the child never blocks on a full pipe.
    Thread.ofVirtual().start(() -> {
      try {
        while (out.readLine() != null) {
          // discard
        }
      } catch (IOException ignored) {
        // the child is gone
      }
    });
    return base;
  }

  private JsonNode post(String base, String path, String body) throws Exception {
    HttpResponse<String> r = http.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("content-type", "application/json")
            .timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + " -> " + r.body()).isBetween(200, 299);
    return JSON.readTree(r.body());
  }

  @Test
  void aPublishToOneProcessWakesALongPollOnTheOther() throws Exception {
    String a = serve();
    String b = serve();
    CompletableFuture<JsonNode> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return post(b, "/v1/queues/jobs/receive", "{\"max\": 1, \"wait\": \"25s\"}");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    // Let B's consumer park; any arrival order still has to end with the message on B.
    Thread.sleep(300);
    String id = post(a, "/v1/queues/jobs/messages", "{\"body\": {\"n\": 1}}").path("id").asText();
    JsonNode got = waiting.get(20, TimeUnit.SECONDS);
    assertThat(got.path("messages")).hasSize(1);
    assertThat(got.path("messages").get(0).path("id").asText()).isEqualTo(id);
  }

  @Test
  void leasesOfAKilledProcessAreRedeliveredByTheOther() throws Exception {
    String a = serve();
    String b = serve();
    StringBuilder batch = new StringBuilder("{\"messages\": [");
    for (int i = 0; i < 5; i++) {
      batch.append(i == 0 ? "" : ",").append("{\"body\": {\"n\": ").append(i).append("}}");
    }
    post(a, "/v1/queues/jobs/messages", batch.append("]}").toString());
    JsonNode leased = post(a, "/v1/queues/jobs/receive", "{\"max\": 10}");
    assertThat(leased.path("messages")).hasSize(5);
    List<String> ids = new ArrayList<>();
    leased.path("messages").forEach(m -> ids.add(m.path("id").asText()));

    children.get(0).destroyForcibly().waitFor(10, TimeUnit.SECONDS);

    // The 1 s leases end; B (now or soon the reaper holder) makes them visible and wakes itself.
    List<String> again = new ArrayList<>();
    for (int round = 0; round < 5 && again.size() < 5; round++) {
      JsonNode got = post(b, "/v1/queues/jobs/receive", "{\"max\": 10, \"wait\": \"10s\"}");
      got.path("messages").forEach(m -> {
        again.add(m.path("id").asText());
        assertThat(m.path("attempt").asInt()).isEqualTo(2);
      });
    }
    assertThat(again).containsExactlyInAnyOrderElementsOf(ids);
  }
}
