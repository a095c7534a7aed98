package dev.wharf.loopback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The bench's HTTP client against a scripted server socket: framing, keep-alive, closes. */
class MiniHttpTest {
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private ServerSocket server;

  @AfterEach
  void stop() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  /** Serves the given raw responses in order, one per request, all on one connection. */
  private int serve(String... responses) throws IOException {
    server = new ServerSocket(0);
    Thread.ofVirtual().start(() -> {
      try (Socket s = server.accept()) {
        InputStream in = s.getInputStream();
        for (String response : responses) {
          requests.add(readRequest(in));
          s.getOutputStream().write(response.getBytes(StandardCharsets.UTF_8));
          s.getOutputStream().flush();
        }
      } catch (IOException e) {
        // the test ends the conversation
      }
    });
    return server.getLocalPort();
  }

  private static String readRequest(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("eof");
      }
      head.write(b);
    }
    String h = head.toString(StandardCharsets.US_ASCII);
    int length = 0;
    for (String line : h.split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    return h + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  @Test
  void readsContentLengthAndChunkedBodiesOnOneConnection() throws IOException {
    int port = serve(
        "HTTP/1.1 201 Created\r\nContent-Length: 10\r\ncontent-type: application/json\r\n\r\n"
            + "{\"id\":\"a\"}",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"x\"\r\n3;ext=1\r\n:1}\r\n0\r\n\r\n",
        "HTTP/1.1 204 No Content\r\n\r\n");
    try (MiniHttp c = new MiniHttp(port, "tok")) {
      HttpConn.Response a = c.send("POST", "/v1/queues/q/messages", "{\"body\":1}".getBytes());
      assertThat(a.status()).isEqualTo(201);
      assertThat(new String(a.body(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"a\"}");
      HttpConn.Response b = c.send("GET", "/v1/queues/q", null);
      assertThat(b.ok()).isTrue();
      assertThat(new String(b.body(), StandardCharsets.UTF_8)).isEqualTo("{\"x\":1}");
      HttpConn.Response d = c.send("DELETE", "/v1/queues/q", null);
      assertThat(d.status()).isEqualTo(204);
      assertThat(d.body()).isEmpty();
    }
    assertThat(requests.get(0))
        .startsWith("POST /v1/queues/q/messages HTTP/1.1\r\n")
        .contains("Authorization: Bearer tok\r\n", "Content-Length: 10\r\n")
        .endsWith("\r\n\r\n{\"body\":1}");
    assertThat(requests.get(1)).startsWith("GET /v1/queues/q HTTP/1.1\r\n")
        .contains("Content-Length: 0\r\n").doesNotContain("Content-Type");
  }

  @Test
  void aServerThatHangsUpMidAnswerIsAnErrorAndTheNextCallReconnects() throws IOException {
    int port = serve("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{\"trunc");
    try (MiniHttp c = new MiniHttp(port, null)) {
      // The scripted server closes after its one answer, which promised more than it sent.
      assertThatThrownBy(() -> c.send("GET", "/healthz", null)).isInstanceOf(IOException.class);
      server.close();
      assertThatThrownBy(() -> c.send("GET", "/healthz", null)).isInstanceOf(IOException.class);
    }
  }

  @Test
  void connectionCloseAndBodiesWithoutLengthAreReadToTheEnd() throws IOException {
    int port = serve("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n{\"code\":\"x\"}");
    try (MiniHttp c = new MiniHttp(port, null)) {
      HttpConn.Response r = c.send("GET", "/readyz", null);
      assertThat(r.status()).isEqualTo(503);
      assertThat(r.ok()).isFalse();
      assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("{\"code\":\"x\"}");
    }
  }
}
