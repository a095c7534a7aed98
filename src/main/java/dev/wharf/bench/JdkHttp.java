package dev.wharf.bench;

import dev.wharf.loopback.HttpConn;
import dev.wharf.loopback.MiniHttp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;

/**
 * The JDK's HttpClient behind {@link HttpConn}, kept to measure it against {@link MiniHttp}
 * ({@code --client jdk}). All connections share one client and its connection pool.
 */
public final class JdkHttp implements HttpConn {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .executor(Executors.newVirtualThreadPerTaskExecutor())
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private final String base;
  private final String token;

  public JdkHttp(int port, String token) {
    this.base = "http://127.0.0.1:" + port;
    this.token = token;
  }

  @Override
  public Response send(String method, String path, byte[] body) throws IOException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<byte[]> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      return new Response(r.statusCode(), r.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  @Override
  public void close() {
    // connections belong to the shared client's pool
  }
}
