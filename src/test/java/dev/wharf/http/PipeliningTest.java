package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.testing.RawHttp;
import java.net.Socket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A client that sends many requests before reading any answer. */
class PipeliningTest extends OneServerTest {
  @BeforeEach
  void queue() {
    api.put("/v1/queues/p", "{}");
  }

  @Test
  void everyPublishOfALongPipelineIsAnsweredInOrderAndEachAnswerIsOneMessage() throws Exception {
    int n = 300;
    StringBuilder requests = new StringBuilder();
    for (int i = 0; i < n; i++) {
      String body = "{\"body\": " + i + "}";
      requests
          .append("POST /v1/queues/p/messages HTTP/1.1\r\nHost: t\r\n")
          .append("Content-Type: application/json\r\nContent-Length: ")
          .append(body.length())
          .append(i == n - 1 ? "\r\nConnection: close\r\n\r\n" : "\r\n\r\n")
          .append(body);
    }
    String all;
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(s, requests.toString());
      all = RawHttp.readAll(s);
    }
    assertThat(all.split("HTTP/1.1 201 ", -1)).hasSize(n + 1);
    assertThat(all).doesNotContain("HTTP/1.1 4", "HTTP/1.1 5");
    JsonNode stats = server.api.get("/v1/queues/p").json().get("stats");
    assertThat(stats.get("ready").asInt()).isEqualTo(n);
    // In order: the answers name the messages in the order the queue holds them.
    JsonNode page = server.api.get("/v1/queues/p/messages?limit=1000").json().get("messages");
    int at = 0;
    for (int i = 0; i < n; i++) {
      assertThat(page.get(i).get("body").asInt()).isEqualTo(i);
      int next = all.indexOf(page.get(i).get("id").asText(), at);
      assertThat(next).as("answer %d", i).isGreaterThan(at);
      at = next;
    }
  }
}
