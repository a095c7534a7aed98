package dev.wharf.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.core.BrokerOptions;
import dev.wharf.http.HttpSettings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A whole {@code wharf.yaml}, typed and valid. {@code sources}, {@code pullApi} and {@code push}
 * are kept as checked maps until the layers that use them read them.
 *
 * @param queues by name, in file order
 * @param sources by name; each value is a map
 */
public record WharfConfig(
    ServerConfig server,
    StorageConfig storage,
    AuthConfig auth,
    Map<String, QueueConfig> queues,
    Map<String, JsonNode> sources,
    JsonNode pullApi,
    JsonNode push) {

  public WharfConfig {
    queues = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(queues));
    sources = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(sources));
  }

  /** What Wharf runs with when there is no config file at all. */
  public static WharfConfig defaults() {
    return new WharfConfig(
        ServerConfig.defaults(),
        StorageConfig.defaults(),
        AuthConfig.defaults(),
        Map.of(),
        Map.of(),
        null,
        null);
  }

  public HttpSettings httpSettings() {
    return new HttpSettings(
        server.host(),
        server.port(),
        server.maxBodyBytes(),
        server.maxBodyMemory(),
        auth.adminToken(),
        auth.requireTokens(),
        server.sseKeepalive(),
        server.requestTimeout(),
        server.idleTimeout(),
        server.maxConnections(),
        server.transport());
  }

  public BrokerOptions brokerOptions() {
    BrokerOptions d = BrokerOptions.defaults();
    return new BrokerOptions(
        server.maxWait(),
        server.maxWaiters(),
        server.maxPublishBatch(),
        server.idempotencyWindow(),
        server.expiredRetention(),
        d.repeatWindow(),
        server.maxReceiveBytes());
  }

  /** A copy listening on another port (0 = ephemeral), for tests and tools. */
  public WharfConfig withPort(int port) {
    ServerConfig s = server;
    return new WharfConfig(
        new ServerConfig(
            s.host(),
            port,
            s.maxBodyBytes(),
            s.maxBodyMemory(),
            s.maxWait(),
            s.maxWaiters(),
            s.maxPublishBatch(),
            s.maxReceiveBytes(),
            s.sseKeepalive(),
            s.idempotencyWindow(),
            s.expiredRetention(),
            s.requestTimeout(),
            s.idleTimeout(),
            s.maxConnections(),
            s.transport()),
        storage,
        auth,
        queues,
        sources,
        pullApi,
        push);
  }

  /** A copy with another storage backend, for tests and tools. */
  public WharfConfig withStorage(StorageConfig newStorage) {
    return new WharfConfig(server, newStorage, auth, queues, sources, pullApi, push);
  }
}
