package dev.wharf.http;

import static dev.wharf.testing.RawHttp.connect;
import static dev.wharf.testing.RawHttp.readUntil;
import static dev.wharf.testing.RawHttp.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.BrokerOptions;
import dev.wharf.http.server.Transport;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code server.max_connections} through the real server: at the cap a new client waits to be
 * accepted instead of being served or failing, and the metrics say where the server stands.
 */
class MaxConnectionsTest {
  private static final int CAP = 2;

  @TempDir Path dir;

  @Test
  void aClientPastTheCapIsServedOnceAnotherLeaves() throws Exception {
    HttpSettings settings =
        new HttpSettings(
            "127.0.0.1",
            0,
            1 << 20,
            HttpSettings.defaultBodyMemory(),
            null,
            false,
            Duration.ofSeconds(15),
            Duration.ofSeconds(30),
            Duration.ofMinutes(1),
            CAP,
            Transport.AUTO);
    try (TestServer server = new TestServer(dir, settings, BrokerOptions.defaults());
        Socket first = connect(server.http.port());
        Socket second = connect(server.http.port())) {
      for (Socket s : new Socket[] {first, second}) {
        write(s, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
        assertThat(readUntil(s, "}")).startsWith("HTTP/1.1 200");
      }
      assertThat(gauge(server, "wharf_http_connections_open")).isEqualTo(CAP);
      assertThat(gauge(server, "wharf_http_connections_max")).isEqualTo(CAP);
      try (Socket third = connect(server.http.port())) {
        write(third, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
        third.setSoTimeout(300);
        boolean answered;
        try {
          answered = third.getInputStream().read() >= 0;
        } catch (SocketTimeoutException e) {
          answered = false;
        }
        assertThat(answered).as("served past the cap").isFalse();
        first.close();
        third.setSoTimeout(10_000);
        assertThat(readUntil(third, "}")).startsWith("HTTP/1.1 200");
      }
      assertThat(server.registry.get("wharf_http_accept_pauses").functionCounter().count())
          .isPositive();
    }
  }

  private static double gauge(TestServer server, String name) {
    return server.registry.get(name).gauge().value();
  }
}
