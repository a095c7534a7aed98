package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.app.WharfApp;
import dev.wharf.config.ConfigLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The multiplexed publishers against a real server: every answer they count is a message the
 * server holds, and the only messages beyond those are requests still in flight when the run
 * ended (at most one per connection). No assertion on speed.
 */
class MuxClientsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dir;
  private static WharfApp app;

  @BeforeAll
  static void start() {
    String yaml = "server:\n  port: 0\nstorage:\n  path: %s\n"
        .formatted(dir.resolve("wharf.db").toString().replace("\\", "/"));
    app = WharfApp.start(new ConfigLoader(Map.of()).parse(yaml, "test"));
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void singleMessagePublishesAllLand() throws Exception {
    runAndCount("mux-single", Payloads.publish(0), 1);
  }

  @Test
  void batchPublishesLargerThanOneWriteAllLand() throws Exception {
    // ~100 KB a request: more than a socket takes in one write, so the selector finishes it.
    runAndCount("mux-batch", Payloads.publishBatch(PublishScenario.BATCH, 0),
        PublishScenario.BATCH);
  }

  private void runAndCount(String queue, byte[] body, int perRequest) throws Exception {
    int clients = 8;
    try (MiniHttp admin = new MiniHttp(app.port(), null)) {
      assertThat(admin.send("PUT", "/v1/queues/" + queue, "{}".getBytes(StandardCharsets.UTF_8))
          .ok()).isTrue();
      Tally t = MuxClients.post(app.port(), null, clients, new Phase(0, 0.5),
          "/v1/queues/" + queue + "/messages", body, perRequest);

      assertThat(t.errors).as("errors %s", t.errorKinds).isZero();
      assertThat(t.requests).isPositive();
      assertThat(t.messages).isEqualTo(t.requests * perRequest);
      // Every counted answer was a durable publish; a request abandoned at the end may land too.
      JsonNode stats = JSON.readTree(admin.send("GET", "/v1/queues/" + queue, null).body())
          .path("stats");
      long ready = stats.path("ready").asLong();
      assertThat(ready).isBetween(t.messages, t.messages + (long) clients * perRequest);
    }
  }
}
