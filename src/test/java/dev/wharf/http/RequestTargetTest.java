package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.testing.RawHttp;
import java.net.Socket;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The request target's forms and the Host header (RFC 9112 3.2). */
class RequestTargetTest extends OneServerTest {
  @BeforeEach
  void queue() {
    api.put("/v1/queues/t", "{}");
  }

  @Test
  void anAbsoluteFormTargetIsRoutedByItsPath() throws Exception {
    assertThat(send("GET http://x/healthz HTTP/1.1\r\nHost: x\r\n")).startsWith("HTTP/1.1 200 ");
    String body = "{\"body\": 1}";
    assertThat(
            send(
                "POST HTTPS://wharf.example:8443/v1/queues/t/messages HTTP/1.1\r\nHost: y\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length()
                    + "\r\n",
                body))
        .startsWith("HTTP/1.1 201 ");
    assertThat(send("GET http://x/v1/queues/t/messages?limit=1 HTTP/1.1\r\nHost: x\r\n"))
        .startsWith("HTTP/1.1 200 ")
        .contains("\"body\":1");
    // No path at all is the root, which no route serves.
    assertThat(send("GET http://x HTTP/1.1\r\nHost: x\r\n"))
        .startsWith("HTTP/1.1 404 ")
        .contains("\"not_found\"");
  }

  @Test
  void anHttp11RequestNeedsExactlyOneHost() throws Exception {
    assertThat(send("GET /healthz HTTP/1.1\r\n"))
        .startsWith("HTTP/1.1 400 ")
        .contains("\"invalid_request\"", "Host");
    assertThat(send("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n"))
        .startsWith("HTTP/1.1 400 ")
        .contains("\"invalid_request\"", "Host");
    assertThat(send("GET /healthz HTTP/1.0\r\nHost: a\r\nHost: b\r\n"))
        .startsWith("HTTP/1.1 400 ")
        .contains("\"invalid_request\"");
    // HTTP/1.0 has no such rule.
    assertThat(send("GET /healthz HTTP/1.0\r\n")).startsWith("HTTP/1.0 200 ");
    // Nothing refused was done.
    assertThat(server.api.get("/v1/queues/t").json().at("/stats/ready").asInt()).isZero();
  }

  @Test
  void aTargetThatIsNeitherAPathNorAnAbsoluteUriIsRefused() throws Exception {
    for (String target : new String[] {"healthz", "*", "x:80", "ftp://x/healthz", "http:///healthz"}) {
      assertThat(send("GET " + target + " HTTP/1.1\r\nHost: x\r\n"))
          .as(target)
          .startsWith("HTTP/1.1 400 ")
          .contains("\"invalid_request\"");
    }
    // The asterisk names the server as a whole, for OPTIONS only: no route serves it.
    assertThat(send("OPTIONS * HTTP/1.1\r\nHost: x\r\n")).startsWith("HTTP/1.1 404 ");
  }

  private String send(String head) throws Exception {
    return send(head, "");
  }

  /** One request, the connection closed after its answer; returns the whole answer. */
  private String send(String head, String body) throws Exception {
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(s, head + "Connection: close\r\n\r\n" + body);
      return RawHttp.readAll(s);
    }
  }
}
