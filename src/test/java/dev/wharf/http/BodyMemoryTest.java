package dev.wharf.http;

import static dev.wharf.testing.RawHttp.connect;
import static dev.wharf.testing.RawHttp.readAll;
import static dev.wharf.testing.RawHttp.readUntil;
import static dev.wharf.testing.RawHttp.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.BrokerOptions;
import dev.wharf.http.server.Transport;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code server.max_body_memory} through the real server: publishes whose bodies would take the
 * request-body bytes held past the bound are refused unread with 503, and what a body took comes
 * back once its answer is out or its client is gone.
 */
class BodyMemoryTest {
  private static final int MAX_BODY = 4096;
  private static final int BODY_MEMORY = MAX_BODY + MAX_BODY / 2;

  @TempDir Path dir;
  private TestServer server;

  @BeforeEach
  void start() throws InterruptedException {
    HttpSettings settings =
        new HttpSettings(
            "127.0.0.1",
            0,
            MAX_BODY,
            BODY_MEMORY,
            null,
            false,
            Duration.ofSeconds(15),
            Duration.ofSeconds(30),
            Duration.ofMinutes(1),
            HttpSettings.defaultMaxConnections(),
            Transport.AUTO);
    server = new TestServer(dir, settings, BrokerOptions.defaults());
    assertThat(server.api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
    // The PUT's two body bytes come back once its answer is written, which may be after this
    // client has read it: counted still, they left the second body below no room (seen in the
    // full suite, 4,096 held against 6,144).
    awaitHeld(0);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aBodyThatDoesNotFitIsRefusedUnreadAndTheBytesComeBack() throws Exception {
    String payload = publishBody(MAX_BODY);
    String half = publishBody(MAX_BODY / 2);
    try (Socket first = connect(server.http.port());
        Socket second = connect(server.http.port())) {
      // They declare a body and a half's worth and send one byte of each: the server holds all
      // it may.
      write(first, publishHead(payload.length()) + payload.charAt(0));
      write(second, publishHead(half.length()) + half.charAt(0));
      awaitHeld(BODY_MEMORY);

      try (Socket third = connect(server.http.port())) {
        // It asks to hear first, and hears the refusal rather than 100 Continue.
        String small = publishBody(100);
        String head = publishHead(small.length());
        write(third, head.substring(0, head.length() - 2) + "Expect: 100-continue\r\n\r\n");
        String refused = readAll(third);
        assertThat(refused)
            .startsWith("HTTP/1.1 503")
            .containsIgnoringCase("retry-after: 1")
            .contains("\"code\":\"server_busy\"")
            .contains("server.max_body_memory");
      }
      assertThat(metric("wharf_http_bodies_refused")).isEqualTo(1);
      assertThat(server.api.get("/v1/queues/q").json().at("/stats/ready").asInt()).isZero();

      // The first body arrives whole: published, and its bytes are given back with its answer,
      // before the next request on the connection runs.
      write(first, payload.substring(1));
      assertThat(readUntil(first, "}")).startsWith("HTTP/1.1 201");
      write(first, "GET /v1/queues/q HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(readUntil(first, "\"ready\":1")).startsWith("HTTP/1.1 200");
      assertThat(held()).isEqualTo(MAX_BODY / 2);
    }
    // The second client left half way: its bytes come back when the server sees it gone.
    awaitHeld(0);
    String full = publishBody(MAX_BODY);
    try (Socket again = connect(server.http.port())) {
      write(again, publishHead(full.length()) + full);
      assertThat(readUntil(again, "}")).startsWith("HTTP/1.1 201");
    }
    assertThat(server.api.get("/v1/queues/q").json().at("/stats/ready").asInt()).isEqualTo(2);
  }

  @Test
  void aChunkedBodyTakesBytesAsItGrowsAndIsRefusedWhenTheyRunOut() throws Exception {
    String payload = publishBody(MAX_BODY);
    try (Socket holder = connect(server.http.port())) {
      write(holder, publishHead(payload.length()) + payload.charAt(0));
      awaitHeld(MAX_BODY);
      try (Socket chunked = connect(server.http.port())) {
        String begun = "{\"content_type\":\"text\",\"body\":\"" + "x".repeat(1000);
        write(
            chunked,
            "POST /v1/queues/q/messages HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n"
                + chunk(begun));
        awaitHeld(MAX_BODY + begun.length());
        // 1,500 more would pass max_body_memory, though not max_body.
        write(chunked, chunk("y".repeat(1500)));
        assertThat(readAll(chunked)).startsWith("HTTP/1.1 503").contains("server_busy");
      }
      // The refused body's bytes went back at once; the holder's are still held.
      assertThat(held()).isEqualTo(MAX_BODY);
    }
    awaitHeld(0);
    assertThat(server.api.get("/v1/queues/q").json().at("/stats/ready").asInt()).isZero();
  }

  /** A publish of a text message whose request body is exactly {@code length} bytes. */
  private static String publishBody(int length) {
    String open = "{\"content_type\":\"text\",\"body\":\"";
    String close = "\"}";
    return open + "x".repeat(length - open.length() - close.length()) + close;
  }

  private static String publishHead(int length) {
    return "POST /v1/queues/q/messages HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + length + "\r\n\r\n";
  }

  private static String chunk(String data) {
    return Integer.toHexString(data.length()) + "\r\n" + data + "\r\n";
  }

  private double metric(String name) {
    return server.registry.get(name).functionCounter().count();
  }

  private long held() {
    return (long) server.registry.get("wharf_http_body_memory_held").gauge().value();
  }

  /**
   * Waits for the bytes held to reach {@code bytes}: what other connections' requests took is
   * taken and given back on the event loop, in no order this test could wait on directly.
   */
  private void awaitHeld(long bytes) throws InterruptedException {
    DoubleSupplier now = this::held;
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (now.getAsDouble() != bytes && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(held()).isEqualTo(bytes);
  }
}
