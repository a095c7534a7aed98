package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.core.BrokerOptions;
import dev.wharf.http.Api.Reply;
import dev.wharf.testing.RawHttp;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
  void aParkedLongPollIsHandedThePublishWithinThePublishItself() throws Exception {
    CompletableFuture<Reply> poll = new CompletableFuture<>();
    Thread.ofVirtual().start(() -> poll.complete(
        api.post("/v1/queues/w/receive", "{\"max\": 2, \"wait\": \"25s\"}")));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.broker.waitingConsumers("w") == 0 && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(server.broker.waitingConsumers("w")).isEqualTo(1);
    Reply pub = api.post("/v1/queues/w/messages",
        "{\"messages\": [{\"body\": 1}, {\"body\": 2}, {\"body\": 3}]}");
    assertThat(pub.status()).isEqualTo(201);
    // Leased by the time the publisher has its answer: the hand-off is part of the publish.
    JsonNode stats = api.get("/v1/queues/w").json().get("stats");
    assertThat(stats.get("leased").asInt()).isEqualTo(2);
    assertThat(stats.get("ready").asInt()).isEqualTo(1);
    Reply got = poll.get(10, TimeUnit.SECONDS);
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.json().get("messages")).extracting(m -> m.get("id").asText())
        .containsExactly(
            pub.json().at("/messages/0/id").asText(), pub.json().at("/messages/1/id").asText());
    String leases = "[\"" + got.json().at("/messages/0/lease_id").asText() + "\", \""
        + got.json().at("/messages/1/lease_id").asText() + "\"]";
    Reply ack = api.post("/v1/queues/w/ack", "{\"lease_ids\": " + leases + "}");
    assertThat(ack.status()).isEqualTo(200);
    assertThat(api.get("/v1/queues/w").json().at("/stats/leased").asInt()).isZero();
  }

  @Test
  void deletingTheQueueAnswersItsLongPollsAtOnce() throws Exception {
    CompletableFuture<Reply> poll = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(() -> poll.complete(api.post("/v1/queues/w/receive", "{\"wait\": \"25s\"}")));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.broker.waitingConsumers() == 0 && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(server.broker.waitingConsumers()).isEqualTo(1);
    assertThat(api.delete("/v1/queues/w").status()).isEqualTo(204);
    // Far below the 25 s wait: the deletion itself ends the poll, with the queue's absence.
    Reply got = poll.get(10, TimeUnit.SECONDS);
    assertThat(got.status()).isEqualTo(404);
    assertThat(got.json().get("code").asText()).isEqualTo("queue_not_found");
    assertThat(server.broker.waitingConsumers()).isZero();
  }

  @Test
  void aLongPollWhoseClientLeftStopsWaitingAndIsHandedNothing() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.http.port())) {
      String body = "{\"wait\": \"25s\"}";
      RawHttp.write(socket, RawHttp.jsonPost("/v1/queues/w/receive", body));
      awaitWaiting("w", 1);
    }
    // Far below the 25 s wait: the connection's close itself ends the wait.
    awaitWaiting("w", 0);
    assertThat(server.broker.waitingConsumers()).isZero();
    // So a publish is not leased to a consumer that is gone: it stays ready for the next one.
    assertThat(api.post("/v1/queues/w/messages", "{\"body\": 1}").status()).isEqualTo(201);
    JsonNode stats = api.get("/v1/queues/w").json().get("stats");
    assertThat(stats.get("ready").asInt()).isEqualTo(1);
    assertThat(stats.get("leased").asInt()).isZero();
  }

  @Test
  void longPollWithNothingToReceiveAnswersAnEmptyList() {
    Reply got = api.post("/v1/queues/w/receive", "{\"wait\": \"100ms\"}");
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.json().get("messages")).isEmpty();
    // The queue never held a message: neither the wait nor its end needed a claim.
    assertThat(server.claims.get()).isZero();
  }

  @Test
  void aLongPollOnAQueueThatHoldsSomethingClaimsFirst() throws Exception {
    Reply pub = api.post("/v1/queues/w/messages", "{\"body\": 1, \"delay\": \"1h\"}");
    assertThat(pub.status()).isEqualTo(201);
    Reply got = api.post("/v1/queues/w/receive", "{\"wait\": \"100ms\"}");
    assertThat(got.json().get("messages")).isEmpty();
    // A delayed message is not known to be absent: claimed at the start and at the end.
    assertThat(server.claims.get()).isEqualTo(2);
  }

  @Test
  void streamSendsKeepalivesAndOneEventPerLeasedMessage() throws Exception {
    HttpResponse<Stream<String>> res =
        api.client.send(
            api.request("/v1/queues/w/stream?max=5&visibility_timeout=1m").GET().build(),
            BodyHandlers.ofLines());
    assertThat(res.statusCode()).isEqualTo(200);
    assertThat(res.headers().firstValue("content-type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
    try (Stream<String> lines = res.body()) {
      Iterator<String> it = lines.iterator();
      // An empty queue: the stream opens with a keepalive comment.
      assertThat(nextLine(it)).isEqualTo(": keepalive");

      String id =
          api.post("/v1/queues/w/messages", "{\"body\": {\"n\": 7}}").json().get("id").asText();
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
      assertThat(m.get("lease_until").asText()).isEqualTo("2026-01-01T00:01:00.000Z");

      Reply ack = api.post("/v1/queues/w/ack", "{\"lease_id\": \"" + leaseId + "\"}");
      assertThat(ack.status()).isEqualTo(200);
    }
  }

  @Test
  void headOnTheStreamIsRefusedAndLeasesNothing() throws Exception {
    api.put("/v1/queues/w", "{\"max_attempts\": 1}");
    String id = api.post("/v1/queues/w/messages", "{\"body\": 1}").json().get("id").asText();
    try (Socket s = RawHttp.connect(server.http.port())) {
      // Twice: a HEAD that streamed would lease the message, then kill it at its second claim.
      RawHttp.write(
          s,
          "HEAD /v1/queues/w/stream HTTP/1.1\r\nHost: t\r\n\r\n"
              + "HEAD /v1/queues/w/stream HTTP/1.1\r\nHost: t\r\n\r\n"
              + "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
      String all = RawHttp.readUntil(s, "\"ok\"");
      assertThat(all).startsWith("HTTP/1.1 405 ").containsIgnoringCase("allow: GET\r\n");
      // No body after either 405, and the connection answers what follows.
      assertThat(all.split("HTTP/1.1 405 ", -1)).hasSize(3);
      assertThat(all).doesNotContain("method_not_allowed").contains("HTTP/1.1 200 ");
    }
    JsonNode stats = api.get("/v1/queues/w").json().get("stats");
    assertThat(stats.get("ready").asInt()).isEqualTo(1);
    assertThat(stats.get("leased").asInt()).isZero();
    assertThat(stats.get("dead").asInt()).isZero();
    assertThat(server.claims.get()).isZero();
    Reply got = api.post("/v1/queues/w/receive", "{}");
    assertThat(got.json().at("/messages/0/id").asText()).isEqualTo(id);
    assertThat(got.json().at("/messages/0/attempt").asInt()).isEqualTo(1);
  }

  @Test
  void headOnTheReadOnlyRoutesIsGetWithoutTheBody() throws Exception {
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(
          s,
          "HEAD /v1/queues/w HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
      String all = RawHttp.readUntil(s, "\"ok\"");
      assertThat(all).startsWith("HTTP/1.1 200 ").doesNotContain("\"name\"");
      assertThat(all.indexOf("HTTP/1.1 200 ", 1)).isPositive();
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

  @Test
  void aMessageThatCouldNotBeWrittenToAGoneStreamIsReleasedAtOnce() throws Exception {
    restartWithLongWaits("long");
    api = server.api;
    api.put("/v1/queues/w", "{}");
    try (Socket socket = new Socket("127.0.0.1", server.http.port())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write(
              ("GET /v1/queues/w/stream?max=1&visibility_timeout=1m HTTP/1.1\r\nHost: t\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      // The opening keepalive: the stream is now parked waiting for a message.
      for (int i = 0; i < 20 && !": keepalive".equals(in.readLine()); i++) {}
      // Reset, not a polite close: the next write on the server side fails at once.
      socket.setSoLinger(true, 0);
    }
    String id = api.post("/v1/queues/w/messages", "{\"body\": 1}").json().get("id").asText();
    // The clock never moves: only a release (not lease expiry) can make it receivable again.
    Reply got = api.post("/v1/queues/w/receive", "{\"wait\": \"10s\"}");
    assertThat(got.json().get("messages")).hasSize(1);
    assertThat(got.json().at("/messages/0/id").asText()).isEqualTo(id);
    assertThat(got.json().at("/messages/0/attempt").asInt()).isEqualTo(1);
  }

  /** A server of its own in {@code subdir}, whose waits may last 25 s, for the shared one. */
  @Test
  void aStreamKeepsRoundingPastAMaxWaitShorterThanItsKeepalive() throws Exception {
    // max_wait bounds a client's wait; a stream's rounds are the server's keepalive, 1 s here.
    server.close();
    BrokerOptions d = BrokerOptions.defaults();
    server =
        new TestServer(
            Files.createDirectories(dir.resolve("short")), "127.0.0.1",
            new BrokerOptions(Duration.ZERO, d.maxWaiters(), d.maxPublishBatch(),
                d.idempotencyWindow(), d.expiredRetention(), d.repeatWindow(),
                d.maxReceiveBytes()));
    server.api.put("/v1/queues/w", "{}");
    HttpResponse<Stream<String>> res =
        server.api.client.send(
            server.api.request("/v1/queues/w/stream").GET().build(), BodyHandlers.ofLines());
    try (Stream<String> lines = res.body()) {
      Iterator<String> it = lines.iterator();
      assertThat(nextLine(it)).isEqualTo(": keepalive");
      assertThat(nextLine(it)).isEmpty();
      // The second round's keepalive, not an error event.
      assertThat(nextLine(it)).isEqualTo(": keepalive");
      String id = server.api.post("/v1/queues/w/messages", "{\"body\": 1}").json().get("id")
          .asText();
      String data = null;
      for (int i = 0; i < 50 && data == null; i++) {
        String line = nextLine(it);
        assertThat(line).doesNotStartWith("event: error");
        if (line.startsWith("data:")) {
          data = line.substring(5).trim();
        }
      }
      assertThat(Api.JSON.readTree(data).get("id").asText()).isEqualTo(id);
    }
  }

  @Test
  void aStreamWhoseClientLeftStopsWaitingAtOnceAndTakesNothingMore() throws Exception {
    // Keepalives 25 s apart: the stream must not need its next write to learn the client left.
    restartWithLongWaits("gone");
    server.api.put("/v1/queues/w", "{}");
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(s, "GET /v1/queues/w/stream HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(RawHttp.readUntil(s, ": keepalive\n\n")).startsWith("HTTP/1.1 200 ");
      awaitWaiting("w", 1);
    }
    awaitWaiting("w", 0);
    assertThat(server.api.post("/v1/queues/w/messages", "{\"body\": 1}").status()).isEqualTo(201);
    JsonNode stats = server.api.get("/v1/queues/w").json().get("stats");
    assertThat(stats.get("ready").asInt()).isEqualTo(1);
    assertThat(stats.get("leased").asInt()).isZero();
  }

  private void awaitWaiting(String queue, int parked) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.broker.waitingConsumers(queue) != parked && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(server.broker.waitingConsumers(queue)).isEqualTo(parked);
  }

  private void restartWithLongWaits(String subdir) throws Exception {
    server.close();
    server =
        new TestServer(
            Files.createDirectories(dir.resolve(subdir)), null, false, "127.0.0.1",
            Duration.ofSeconds(25));
  }

  @Test
  void closingTheServerEndsOpenStreamsPromptly() throws Exception {
    restartWithLongWaits("long");
    server.api.put("/v1/queues/w", "{}");
    HttpResponse<Stream<String>> res =
        server.api.client.send(
            server.api.request("/v1/queues/w/stream").GET().build(), BodyHandlers.ofLines());
    try (Stream<String> lines = res.body()) {
      assertThat(res.statusCode()).isEqualTo(200);
      assertThat(nextLine(lines.iterator())).isEqualTo(": keepalive");
      long started = System.nanoTime();
      CompletableFuture.runAsync(server::close).get(10, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }
  }

  @Test
  void stoppingTheServerAnswersParkedLongPollsAndEndsStreamsWithAnErrorEvent() throws Exception {
    restartWithLongWaits("stop");
    server.api.put("/v1/queues/w", "{}");
    int port = server.http.port();
    try (Socket poll = RawHttp.connect(port);
        Socket stream = RawHttp.connect(port)) {
      String body = "{\"wait\": \"25s\"}";
      RawHttp.write(poll, RawHttp.jsonPost("/v1/queues/w/receive", body));
      RawHttp.write(stream, "GET /v1/queues/w/stream HTTP/1.1\r\nHost: t\r\n\r\n");
      String opened = RawHttp.readUntil(stream, ": keepalive\n\n");
      // Both parked: the long-poll on its callback, the stream's thread in its next receive.
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (server.broker.waitingConsumers("w") < 2 && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      assertThat(server.broker.waitingConsumers("w")).isEqualTo(2);

      long started = System.nanoTime();
      CompletableFuture.runAsync(server::close).get(15, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));

      // The long-poll's wait ended with nothing: the answer any wait that runs out gets.
      String polled = RawHttp.readAll(poll);
      assertThat(polled).startsWith("HTTP/1.1 200 ");
      assertThat(polled.toLowerCase(java.util.Locale.ROOT)).contains("connection: close\r\n");
      assertThat(Api.JSON.readTree(polled.substring(polled.indexOf("\r\n\r\n") + 4)))
          .isEqualTo(Api.JSON.readTree("{\"messages\": []}"));

      // The stream: its error event, then the chunked body's last chunk.
      String streamed = opened + RawHttp.readAll(stream);
      assertThat(streamed).startsWith("HTTP/1.1 200 ");
      String events = dechunk(streamed.substring(streamed.indexOf("\r\n\r\n") + 4));
      assertThat(events).isEqualTo(": keepalive\n\nevent: error\ndata: the server is stopping\n\n");
    }
    assertThat(server.broker.waitingConsumers()).isZero();
  }

  @Test
  void aStreamToAnHttp10ClientIsNotChunkedAndEndsWithTheConnection() throws Exception {
    restartWithLongWaits("http10");
    server.api.put("/v1/queues/w", "{}");
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(s, "GET /v1/queues/w/stream HTTP/1.0\r\n\r\n");
      String opened = RawHttp.readUntil(s, ": keepalive\n\n");
      String head = opened.substring(0, opened.indexOf("\r\n\r\n") + 4);
      assertThat(head).startsWith("HTTP/1.0 200 ").containsIgnoringCase("connection: close\r\n");
      assertThat(head.toLowerCase(java.util.Locale.ROOT)).doesNotContain("transfer-encoding");
      String id = server.api.post("/v1/queues/w/messages", "{\"body\": 1}").json().get("id").asText();
      String events = opened.substring(head.length()) + RawHttp.readUntil(s, "}\n\n");
      assertThat(events).startsWith(": keepalive\n\nevent: message\nid: ").contains(id);
      CompletableFuture.runAsync(server::close).get(15, TimeUnit.SECONDS);
      // The body ends where the connection does, after the error event: no chunk framing.
      assertThat(RawHttp.readAll(s)).isEqualTo("event: error\ndata: the server is stopping\n\n");
    }
  }

  /** A chunked body's content; fails unless it ends with the last (empty) chunk. */
  private static String dechunk(String chunked) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int eol = chunked.indexOf("\r\n", at);
      assertThat(eol).as("a chunk size line in %s", chunked).isGreaterThanOrEqualTo(0);
      int size = Integer.parseInt(chunked.substring(at, eol).trim(), 16);
      at = eol + 2;
      if (size == 0) {
        assertThat(chunked.substring(at)).isEqualTo("\r\n");
        return out.toString();
      }
      assertThat(chunked.length()).as("a whole chunk in %s", chunked).isGreaterThanOrEqualTo(at + size + 2);
      out.append(chunked, at, at + size);
      assertThat(chunked.substring(at + size, at + size + 2)).isEqualTo("\r\n");
      at += size + 2;
    }
  }

  @Test
  void pastTheWaiterLimitALongPollIsToldToRetry() throws Exception {
    server.close();
    BrokerOptions none =
        new BrokerOptions(
            Duration.ofSeconds(30),
            0,
            1000,
            Duration.ofHours(24),
            Duration.ofDays(1),
            Duration.ofMinutes(5),
            BrokerOptions.defaults().maxReceiveBytes());
    server =
        new TestServer(
            Files.createDirectories(dir.resolve("none")),
            null,
            false,
            "127.0.0.1",
            Duration.ofSeconds(1),
            none);
    server.api.put("/v1/queues/w", "{}");
    Reply r = server.api.post("/v1/queues/w/receive", "{\"wait\": \"5s\"}");
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.code()).isEqualTo("too_many_waiters");
    assertThat(r.raw().headers().firstValue("retry-after")).hasValue("1");
    // A stream waits too: refused the same way, not opened to end with an error event.
    Reply stream = server.api.get("/v1/queues/w/stream");
    assertThat(stream.status()).isEqualTo(503);
    assertThat(stream.code()).isEqualTo("too_many_waiters");
    assertThat(stream.raw().headers().firstValue("retry-after")).hasValue("1");
    // A receive that does not wait never parks, so it is still served.
    assertThat(server.api.post("/v1/queues/w/receive", "{}").status()).isEqualTo(200);
  }

  /** The next line, failing the test instead of hanging when none comes within a bound. */
  private static String nextLine(Iterator<String> it) throws Exception {
    return CompletableFuture.supplyAsync(it::next).get(10, TimeUnit.SECONDS);
  }
}
