package dev.wharf.http;

import java.time.Duration;

/**
 * What the HTTP layer needs from the config file.
 *
 * @param host address to bind (default 127.0.0.1)
 * @param port 0 = an ephemeral port
 * @param maxBodyBytes largest request body accepted
 * @param adminToken null = management routes answer loopback clients only
 * @param requireTokens when true, a queue without consumer tokens still needs the admin token
 * @param sseKeepalive interval of SSE keepalive comments
 */
public record HttpSettings(
    String host,
    int port,
    long maxBodyBytes,
    String adminToken,
    boolean requireTokens,
    Duration sseKeepalive) {

  public static HttpSettings defaults() {
    return new HttpSettings("127.0.0.1", 8080, 1 << 20, null, false, Duration.ofSeconds(15));
  }

  public HttpSettings withPort(int newPort) {
    return new HttpSettings(host, newPort, maxBodyBytes, adminToken, requireTokens, sseKeepalive);
  }
}
