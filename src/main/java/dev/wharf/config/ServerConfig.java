package dev.wharf.config;

import dev.wharf.http.server.Transport;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The {@code server} section: where to listen and the limits every dialect shares.
 *
 * @param maxBodyBytes largest request body accepted
 * @param maxBodyMemory request-body bytes held at once across all connections; past it, 503
 * @param maxWait longest long-poll wait
 * @param maxWaiters consumers parked at once; past it, 503 with Retry-After
 * @param maxPublishBatch messages in one publish request
 * @param maxReceiveBytes message size (payload bytes, metadata and header characters) past which a receive takes no further message
 * @param sseKeepalive interval of SSE keepalive comments
 * @param idempotencyWindow how long an idempotency key makes a repeat publish a duplicate
 * @param expiredRetention how long a message whose TTL passed is kept for inspection
 * @param requestTimeout longest silence while a client sends a request (then 408)
 * @param idleTimeout how long a keep-alive connection with no request under way stays open
 * @param maxConnections connections open at once; past it new ones wait to be accepted
 * @param transport how the event loops drive their sockets
 */
public record ServerConfig(
    String host,
    int port,
    long maxBodyBytes,
    long maxBodyMemory,
    Duration maxWait,
    int maxWaiters,
    int maxPublishBatch,
    long maxReceiveBytes,
    Duration sseKeepalive,
    Duration idempotencyWindow,
    Duration expiredRetention,
    Duration requestTimeout,
    Duration idleTimeout,
    int maxConnections,
    Transport transport) {

  public static ServerConfig defaults() {
    return new ServerConfig(
        "127.0.0.1",
        8080,
        1L << 20,
        dev.wharf.http.HttpSettings.defaultBodyMemory(),
        Duration.ofSeconds(30),
        10_000,
        1000,
        dev.wharf.core.BrokerOptions.defaults().maxReceiveBytes(),
        Duration.ofSeconds(15),
        Duration.ofHours(24),
        Duration.ofDays(1),
        Duration.ofSeconds(30),
        Duration.ofMinutes(5),
        dev.wharf.http.HttpSettings.defaultMaxConnections(),
        Transport.AUTO);
  }

  static ServerConfig read(ConfigNode n) {
    ServerConfig d = defaults();
    String host = n.string("host", d.host());
    if (host.isBlank()) {
      n.problems().add(n.pathOf("host"), "must not be empty");
    } else if (!host.matches("[A-Za-z0-9.:%\\[\\]_-]+")) {
      // A name that cannot resolve by its spelling is caught by the check, not only at the start.
      n.problems().add(n.pathOf("host"),
          "expected a host name or an IP address, got \"" + host + "\"");
    }
    int port = n.integer("port", d.port(), 0, 65535);
    long maxBody = n.size("max_body", d.maxBodyBytes());
    if (maxBody < 1024 || maxBody > (1L << 30)) {
      n.problems().add(n.pathOf("max_body"),
          "must be between 1KB and 1GB, got " + ByteSizes.format(maxBody));
    }
    // Unset, it is never less than one largest body.
    long maxBodyMemory = n.size("max_body_memory", Math.max(maxBody, d.maxBodyMemory()));
    if (maxBodyMemory < maxBody || maxBodyMemory > (64L << 30)) {
      n.problems()
          .add(
              n.pathOf("max_body_memory"),
              "must be between max_body ("
                  + ByteSizes.format(maxBody)
                  + ") and 64GB, got "
                  + ByteSizes.format(maxBodyMemory));
    }
    Duration maxWait = n.duration("max_wait", d.maxWait());
    within(n, "max_wait", maxWait, Duration.ZERO, Duration.ofMinutes(15));
    int maxWaiters = n.integer("max_waiters", d.maxWaiters(), 1, 1_000_000);
    int maxBatch = n.integer("max_publish_batch", d.maxPublishBatch(), 1, 100_000);
    long maxReceiveBytes = n.size("max_receive_bytes", d.maxReceiveBytes());
    if (maxReceiveBytes < 1024 || maxReceiveBytes > (1L << 30)) {
      n.problems().add(n.pathOf("max_receive_bytes"),
          "must be between 1KB and 1GB, got " + ByteSizes.format(maxReceiveBytes));
    }
    Duration keepalive = n.duration("sse_keepalive", d.sseKeepalive());
    within(n, "sse_keepalive", keepalive, Duration.ofSeconds(1), Duration.ofMinutes(10));
    Duration idem = n.duration("idempotency_window", d.idempotencyWindow());
    within(n, "idempotency_window", idem, Duration.ofSeconds(1), Duration.ofDays(30));
    Duration retention = n.duration("expired_retention", d.expiredRetention());
    within(n, "expired_retention", retention, Duration.ZERO, Duration.ofDays(365));
    Duration requestTimeout = n.duration("request_timeout", d.requestTimeout());
    within(n, "request_timeout", requestTimeout, Duration.ofSeconds(1), Duration.ofMinutes(10));
    Duration idleTimeout = n.duration("idle_timeout", d.idleTimeout());
    within(n, "idle_timeout", idleTimeout, Duration.ofSeconds(1), Duration.ofDays(1));
    if (idleTimeout.compareTo(requestTimeout) < 0) {
      n.problems().add(n.pathOf("idle_timeout"), "must not be shorter than request_timeout");
    }
    int maxConnections =
        n.integer("max_connections", d.maxConnections(), 1, MAX_CONNECTIONS_CEILING);
    String transportName = n.string("transport", d.transport().configName());
    Transport transport = Transport.fromConfig(transportName);
    if (transport == null) {
      n.problems()
          .add(
              n.pathOf("transport"),
              "expected one of "
                  + Arrays.stream(Transport.values())
                      .map(Transport::configName)
                      .collect(Collectors.joining(", "))
                  + ", got \"" + transportName + "\"");
      transport = d.transport();
    }
    n.rejectUnknown();
    return new ServerConfig(
        host,
        port,
        maxBody,
        maxBodyMemory,
        maxWait,
        maxWaiters,
        maxBatch,
        maxReceiveBytes,
        keepalive,
        idem,
        retention,
        requestTimeout,
        idleTimeout,
        maxConnections,
        transport);
  }

  /** Far past what one process serves; a bound so that a typo is caught, not a tuning. */
  static final int MAX_CONNECTIONS_CEILING = 10_000_000;

  static void within(ConfigNode n, String key, Duration d, Duration min, Duration max) {
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      n.problems()
          .add(
              n.pathOf(key),
              "must be between "
                  + dev.wharf.core.Durations.format(min)
                  + " and "
                  + dev.wharf.core.Durations.format(max)
                  + ", got "
                  + dev.wharf.core.Durations.format(d));
    }
  }
}
