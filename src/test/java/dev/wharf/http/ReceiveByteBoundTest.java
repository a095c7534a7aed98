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

  private JsonNode received(String request) {
    Api.Reply r = server.api.post("/v1/queues/q/receive", request);
    assertThat(r.status()).isEqualTo(200);
    return r.json().get("messages");
  }
}
