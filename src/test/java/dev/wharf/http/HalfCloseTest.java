package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.testing.RawHttp;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Clients that shut their side of the connection once they have sent their requests. */
class HalfCloseTest extends OneServerTest {
  @BeforeEach
  void queue() {
    api.put("/v1/queues/h", "{}");
  }

  @Test
  void aPublishFollowedByTheEndOfTheClientsInputIsAnswered() throws Exception {
    String body = "{\"body\": 1}";
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(
          s,
          RawHttp.jsonPost("/v1/queues/h/messages", body)
              + "GET /v1/queues/h HTTP/1.1\r\nHost: t\r\n\r\n");
      s.shutdownOutput();
      String all = RawHttp.readAll(s);
      assertThat(all).startsWith("HTTP/1.1 201 ").contains("\"id\"");
      assertThat(all.indexOf("HTTP/1.1 200 ")).isGreaterThan(all.indexOf("\"id\""));
    }
    assertThat(api.get("/v1/queues/h").json().at("/stats/ready").asInt()).isEqualTo(1);
  }

  @Test
  void aReceiveThatDoesNotWaitFollowedByTheEndOfTheClientsInputIsAnswered() throws Exception {
    assertThat(api.post("/v1/queues/h/messages", "{\"body\": 1}").status()).isEqualTo(201);
    String all;
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(s, RawHttp.jsonPost("/v1/queues/h/receive", "{\"wait\": 0}"));
      s.shutdownOutput();
      all = RawHttp.readAll(s);
    }
    assertThat(all).startsWith("HTTP/1.1 200 ").contains("\"lease_id\"");
    assertThat(api.get("/v1/queues/h").json().at("/stats/leased").asInt()).isEqualTo(1);
  }

  @Test
  void aParkedLongPollWhoseClientHalfClosesEndsAndIsHandedNothing() throws Exception {
    String body = "{\"wait\": \"25s\"}";
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(s, RawHttp.jsonPost("/v1/queues/h/receive", body));
      awaitWaiting(() -> server.broker.waitingConsumers("h"), 1);
      s.shutdownOutput();
      // Far below the 25 s wait: a client that may have gone is not kept waiting for messages.
      awaitWaiting(() -> server.broker.waitingConsumers("h"), 0);
      assertThat(RawHttp.readAll(s)).isEmpty();
    }
    assertThat(api.post("/v1/queues/h/messages", "{\"body\": 1}").status()).isEqualTo(201);
    JsonNode stats = api.get("/v1/queues/h").json().get("stats");
    assertThat(stats.get("ready").asInt()).isEqualTo(1);
    assertThat(stats.get("leased").asInt()).isZero();
  }

  @Test
  void aStreamWhoseClientHalfClosesEnds() throws Exception {
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(s, "GET /v1/queues/h/stream HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(RawHttp.readUntil(s, ": keepalive\n\n")).startsWith("HTTP/1.1 200 ");
      // Parked in its next round: one still between rounds when the input ends would claim once
      // more, and could take the message published below after the check that it was ready.
      awaitWaiting(() -> server.broker.waitingConsumers("h"), 1);
      s.shutdownOutput();
      // The server closes its side: the read ends instead of timing out.
      RawHttp.readAll(s);
    }
    awaitWaiting(() -> server.broker.waitingConsumers("h"), 0);
    assertThat(api.post("/v1/queues/h/messages", "{\"body\": 1}").status()).isEqualTo(201);
    JsonNode stats = api.get("/v1/queues/h").json().get("stats");
    assertThat(stats.get("ready").asInt()).isEqualTo(1);
    assertThat(stats.get("leased").asInt()).isZero();
  }

  private static void awaitWaiting(IntSupplier waiting, int expected) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (waiting.getAsInt() != expected && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(waiting.getAsInt()).isEqualTo(expected);
  }
}
