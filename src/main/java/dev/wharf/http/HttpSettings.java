package dev.wharf.http;

import dev.wharf.http.server.FileDescriptors;
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
 * @param maxConnections connections open at once; at it the server stops accepting until one closes
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
    int maxConnections,
    Transport transport) {

  /**
   * Twice the default {@code max_waiters} (10,000 parked long-polls, each on its own connection),
   * so that a full house of waiters leaves as many connections again for everyone else.
   */
  public static final int DEFAULT_MAX_CONNECTIONS = 20_000;

  /**
   * Connections open at once unless configured: {@link #DEFAULT_MAX_CONNECTIONS}, or what the
   * process's file-descriptor limit leaves room for when that is less (only a configured value
   * past that room is worth a warning at the start).
   */
  public static int defaultMaxConnections() {
    return Math.min(DEFAULT_MAX_CONNECTIONS, FileDescriptors.room());
  }

  /**
   * Request-body bytes held at once unless configured: room for 256 bodies of the default 1 MB,
   * or a quarter of the heap ceiling when that is less, so that bodies alone never fill the heap.
   */
  public static long defaultBodyMemory() {
    return Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4);
  }

  /**
   * With the default body memory ({@link #defaultBodyMemory()}), request (30 s) and idle (5 min)
   * timeouts, connection cap and transport.
   */
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
        defaultMaxConnections(),
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
        maxConnections,
        transport);
  }
}
