package dev.wharf.http;

import dev.wharf.http.server.Transport;
import java.time.Duration;

/**
 * What the HTTP layer needs from the config file.
 *
 * @param host address to bind (default 127.0.0.1)
 * @param port 0 = an ephemeral port
 * @param maxBodyBytes largest request body accepted
 * @param maxBodyMemory request-body bytes held at once across all connections
 * @param adminToken null = management routes answer loopback clients only
 * @param requireTokens when true, a queue without consumer tokens still needs the admin token
 * @param sseKeepalive interval of SSE keepalive comments
 * @param requestTimeout longest silence while a client sends a request (then 408)
 * @param idleTimeout how long a keep-alive connection with no request under way stays open
 * @param transport how the event loops drive their sockets
 */
public record HttpSettings(
    String host,
    int port,
    long maxBodyBytes,
    long maxBodyMemory,
    String adminToken,
    boolean requireTokens,
    Duration sseKeepalive,
    Duration requestTimeout,
    Duration idleTimeout,
    Transport transport) {

  /**
   * Request-body bytes held at once unless configured: room for 256 bodies of the default 1 MB,
   * or a quarter of the heap ceiling when that is less, so that bodies alone never fill the heap.
   */
  public static long defaultBodyMemory() {
    return Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4);
  }

  /** With the default body memory ({@link #defaultBodyMemory()}), request (30 s) and idle (5 min) timeouts and transport. */
  public HttpSettings(
      String host,
      int port,
      long maxBodyBytes,
      String adminToken,
      boolean requireTokens,
      Duration sseKeepalive) {
    this(
        host,
        port,
        maxBodyBytes,
        Math.max(maxBodyBytes, defaultBodyMemory()),
        adminToken,
        requireTokens,
        sseKeepalive,
        Duration.ofSeconds(30),
        Duration.ofMinutes(5),
        Transport.AUTO);
  }

  public static HttpSettings defaults() {
    return new HttpSettings("127.0.0.1", 8080, 1 << 20, null, false, Duration.ofSeconds(15));
  }

  public HttpSettings withPort(int newPort) {
    return new HttpSettings(
        host,
        newPort,
        maxBodyBytes,
        maxBodyMemory,
        adminToken,
        requireTokens,
        sseKeepalive,
        requestTimeout,
        idleTimeout,
        transport);
  }
}
