package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.core.BrokerOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code server.max_receive_bytes} through the real server: a receive asking for many large
 * messages gets as many as fit, the first always, and the rest stay ready for the next receive.
 */
class ReceiveByteBoundTest {
  @TempDir Path dir;
  private TestServer server;

  @BeforeEach
  void start() {
    BrokerOptions d = BrokerOptions.defaults();
    BrokerOptions options =
        new BrokerOptions(
            d.maxWait(),
            d.maxWaiters(),
            d.maxPublishBatch(),
            d.idempotencyWindow(),
            d.expiredRetention(),
            d.repeatWindow(),
            1024);
    server = new TestServer(dir, "127.0.0.1", options);
    assertThat(server.api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aReceiveTakesWhatFitsAndLeavesTheRestReady() {
    String text = "x".repeat(600);
    String one = "{\"content_type\":\"text\",\"body\":\"" + text + "\"}";
    assertThat(server.api.post("/v1/queues/q/messages", "{\"messages\":[" + one + "," + one + ","
        + "{\"body\":\"small\",\"content_type\":\"text\"}]}").status()).isEqualTo(201);

    // 600 + 600 bytes would pass the 1,024 bound: one message.
    JsonNode first = received("{\"max\": 10}");
    assertThat(first).hasSize(1);
    assertThat(first.get(0).get("body").asText()).isEqualTo(text);
    assertThat(server.api.get("/v1/queues/q").json().at("/stats/ready").asInt()).isEqualTo(2);
    // 600 + 5 fit.
    JsonNode rest = received("{\"max\": 10}");
    assertThat(rest).extracting(m -> m.get("body").asText()).containsExactly(text, "small");
    assertThat(server.api.get("/v1/queues/q").json().at("/stats/leased").asInt()).isEqualTo(3);
  }

  @Test
  void metadataAndHeadersCountAsAPayloadDoes() {
    String big = "m".repeat(600);
    String one = "{\"body\":1,\"metadata\":{\"note\":\"" + big + "\"}}";
    String two = "{\"body\":2,\"headers\":{\"x-note\":\"" + big + "\"}}";
    assertThat(server.api.post("/v1/queues/q/messages", "{\"messages\":[" + one + "," + two
        + ",{\"body\":3}]}").status()).isEqualTo(201);
    // Bodies of a byte each, but over 600 characters of metadata, then of headers, each.
    assertThat(received("{\"max\": 10}")).extracting(m -> m.get("body").asInt())
        .containsExactly(1);
    assertThat(received("{\"max\": 10}")).extracting(m -> m.get("body").asInt())
        .containsExactly(2, 3);
  }

  /**
   * Parked receives handed a batch bigger than the byte bound lets one take: each one cut short by
   * the bound wakes another, so none of the messages waits for a receive's wait to run out.
   */
  @Test
  void messagesABoundedReceiveLeftBehindGoToTheOtherParkedReceives() throws Exception {
    try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      java.util.List<java.util.concurrent.Future<JsonNode>> parked = new java.util.ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int parkedBefore = i;
        parked.add(pool.submit(() -> received("{\"max\": 10, \"wait\": \"25s\"}")));
        // In the queue's list, oldest first: the publish hands over to the first.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (server.broker.waitingConsumers("q") == parkedBefore
            && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      }
      assertThat(server.broker.waitingConsumers("q")).isEqualTo(3);
      String one = "{\"content_type\":\"text\",\"body\":\"" + "y".repeat(400) + "\"}";
      assertThat(server.api.post("/v1/queues/q/messages",
          "{\"messages\":[" + String.join(",", java.util.Collections.nCopies(5, one)) + "]}")
          .status()).isEqualTo(201);
      int got = 0;
      for (var p : parked) {
        // Far less than the 25 s wait: a receive left parked would answer only then.
        got += p.get(10, java.util.concurrent.TimeUnit.SECONDS).size();
      }
      assertThat(got).isEqualTo(5);
    }
  }

  private JsonNode received(String request) {
    Api.Reply r = server.api.post("/v1/queues/q/receive", request);
    assertThat(r.status()).isEqualTo(200);
    return r.json().get("messages");
  }
}
