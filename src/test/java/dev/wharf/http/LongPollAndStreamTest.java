package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.http.Api.Reply;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Consumers that wait: a long-poll woken by a publish, and the SSE stream. */
class LongPollAndStreamTest {
  @TempDir Path dir;
  TestServer server;
  Api api;

  @BeforeEach
  void start() {
    server = new TestServer(dir);
    api = server.api;
    api.put("/v1/queues/w", "{}");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void longPollIsWokenByAPublish() throws Exception {
    CompletableFuture<Reply> poll = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(() -> poll.complete(api.post("/v1/queues/w/receive", "{\"wait\": \"25s\"}")));
    Reply pub = api.post("/v1/queues/w/messages", "{\"body\": {\"hello\": true}}");
    // Far below the 25 s wait: only a wake-up (or the message already being there) ends it.
    Reply got = poll.get(10, TimeUnit.SECONDS);
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.json().at("/messages/0/id").asText()).isEqualTo(pub.json().get("id").asText());
  }

  @Test
  void longPollWithNothingToReceiveAnswersAnEmptyList() {
    Reply got = api.post("/v1/queues/w/receive", "{\"wait\": \"100ms\"}");
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.json().get("messages")).isEmpty();
  }

  @Test
  void streamSendsKeepalivesAndOneEventPerLeasedMessage() throws Exception {
    HttpResponse<Stream<String>> res =
        api.client.send(
            api.request("/v1/queues/w/stream?max=5&visibility_timeout=1m").GET().build(),
            BodyHandlers.ofLines());
    assertThat(res.statusCode()).isEqualTo(200);
    assertThat(res.headers().firstValue("content-type")).hasValueSatisfying(
        t -> assertThat(t).startsWith("text/event-stream"));
    try (Stream<String> lines = res.body()) {
      Iterator<String> it = lines.iterator();
      // An empty queue: the stream opens with a keepalive comment.
      assertThat(nextLine(it)).isEqualTo(": keepalive");

      String id = api.post("/v1/queues/w/messages", "{\"body\": {\"n\": 7}}").json().get("id").asText();
      String event = null;
      String leaseId = null;
      String data = null;
      for (int i = 0; i < 50 && data == null; i++) {
        String line = nextLine(it);
        if (line.startsWith("event:")) {
          event = line.substring(6).trim();
        } else if (line.startsWith("id:")) {
          leaseId = line.substring(3).trim();
        } else if (line.startsWith("data:")) {
          data = line.substring(5).trim();
        }
      }
      assertThat(event).isEqualTo("message");
      JsonNode m = Api.JSON.readTree(data);
      assertThat(m.get("id").asText()).isEqualTo(id);
      assertThat(m.at("/body/n").asInt()).isEqualTo(7);
      assertThat(m.get("lease_id").asText()).isEqualTo(leaseId);
      assertThat(m.get("lease_until").asText()).isEqualTo("2026-01-01T00:01:00Z");

      Reply ack = api.post("/v1/queues/w/ack", "{\"lease_id\": \"" + leaseId + "\"}");
      assertThat(ack.status()).isEqualTo(200);
    }
  }

  @Test
  void streamOnAnUnknownQueueIsAPlain404() {
    Reply r = api.get("/v1/queues/nope/stream");
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.code()).isEqualTo("queue_not_found");
    Reply bad = api.get("/v1/queues/w/stream?max=0");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.code()).isEqualTo("invalid_param");
  }

  /** The next line, failing the test instead of hanging when none comes within a bound. */
  private static String nextLine(Iterator<String> it) throws Exception {
    return CompletableFuture.supplyAsync(it::next).get(10, TimeUnit.SECONDS);
  }
}
