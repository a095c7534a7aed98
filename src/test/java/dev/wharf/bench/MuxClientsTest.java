package dev.wharf.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.app.WharfApp;
import dev.wharf.config.ConfigLoader;
import dev.wharf.loopback.MiniHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The multiplexed clients against a real server. Publishers: every answer they count is a message
 * the server holds, and the only messages beyond those are requests still in flight when the run
 * ended (at most one per connection). Consumers: every ack they count is one the server counted,
 * and no message is lost between ready, leased and acked. No assertion on speed.
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

  @Test
  void consumersAckWhatTheyReceiveAndNothingElse() throws Exception {
    String queue = "mux-consume";
    int published = 500;
    int consumers = 4;
    try (MiniHttp admin = new MiniHttp(app.port(), null)) {
      assertThat(admin.send("PUT", "/v1/queues/" + queue, "{}".getBytes(StandardCharsets.UTF_8))
          .ok()).isTrue();
      for (int i = 0; i < published / PublishScenario.BATCH; i++) {
        assertThat(admin.send("POST", "/v1/queues/" + queue + "/messages",
            Payloads.publishBatch(PublishScenario.BATCH, 0)).ok()).isTrue();
      }
      Phase phase = new Phase(0, 0.5);
      Tally received = new Tally();
      Tally acked = new Tally();
      MuxClients.Request receive = new MuxClients.Request(
          "/v1/queues/" + queue + "/receive", Payloads.receive(1, "1s"));
      List<MuxClients.Conversation> all = new ArrayList<>();
      for (int i = 0; i < consumers; i++) {
        all.add(new ConsumeScenario.MuxConsumer(phase, receive, "/v1/queues/" + queue + "/ack",
            new Backlog(0), received, acked));
      }
      MuxClients.run(app.port(), null, phase, all);

      assertThat(received.errors).as("errors %s", received.errorKinds).isZero();
      assertThat(acked.errors).as("errors %s", acked.errorKinds).isZero();
      assertThat(acked.messages).isPositive().isLessThanOrEqualTo(received.messages);
      // An ack in flight when the run ended may still land after the clients stop, and its
      // counter moves just after its commit, so the accounting is read once the server settles.
      JsonNode stats = settledStats(admin, queue, published);
      long serverAcked = stats.path("acked").asLong();
      assertThat(serverAcked).isBetween(acked.messages, acked.messages + consumers);
      assertThat(stats.path("ready").asLong() + stats.path("leased").asLong() + serverAcked)
          .isEqualTo(published);
    }
  }

  /**
   * The queue's stats once ready + leased + acked adds up to what was published, or the last
   * read after five seconds, so a message truly lost still fails the assertion that follows.
   */
  private static JsonNode settledStats(MiniHttp admin, String queue, long published)
      throws Exception {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (true) {
      JsonNode stats = JSON.readTree(admin.send("GET", "/v1/queues/" + queue, null).body())
          .path("stats");
      long sum = stats.path("ready").asLong() + stats.path("leased").asLong()
          + stats.path("acked").asLong();
      if (sum == published || System.nanoTime() > deadline) {
        return stats;
      }
      Thread.sleep(10);
    }
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
