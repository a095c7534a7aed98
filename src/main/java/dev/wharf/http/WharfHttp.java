package dev.wharf.http;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.http.nativeapi.DeadLetterService;
import dev.wharf.http.nativeapi.MessagesService;
import dev.wharf.http.nativeapi.QueuesService;
import dev.wharf.http.nativeapi.SettleService;
import dev.wharf.http.nativeapi.StreamService;
import dev.wharf.http.server.HttpServer;
import dev.wharf.http.server.Transport;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;

/** The HTTP server: the native API under {@code /v1}, health, readiness and metrics. */
public final class WharfHttp implements AutoCloseable {
  /**
   * Threads that only move bytes; handlers run on virtual threads. One per core leaves the other
   * cores' worth to handlers and the storage writer.
   */
  private static final int EVENT_LOOPS = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);

  private final Broker broker;
  private final HttpServer server;

  private WharfHttp(Broker broker, HttpServer server) {
    this.broker = broker;
    this.server = server;
  }

  public static WharfHttp start(
      Broker broker, PrometheusMeterRegistry registry, HttpSettings settings) {
    Endpoints endpoints =
        new Endpoints(
            broker,
            new Auth(
                settings.adminToken(), settings.requireTokens(), () -> consumerTokens(broker)),
            new HttpMetrics(registry));
    RequestBodies bodies = new RequestBodies(settings.maxBodyBytes());
    new OpsService(broker, registry, endpoints).routes();
    new QueuesService(broker, endpoints, bodies).routes();
    new MessagesService(broker, endpoints, bodies).routes();
    new SettleService(broker, endpoints, bodies).routes();
    new StreamService(broker, endpoints, settings.sseKeepalive()).routes();
    new DeadLetterService(broker, endpoints, bodies).routes();
    HttpServer server;
    try {
      server =
          HttpServer.start(
              settings.host(),
              settings.port(),
              endpoints.handler(),
              (status, code, detail) -> Replies.errorBody(code, detail),
              new HttpServer.Limits(
                  settings.maxBodyBytes(),
                  settings.maxBodyMemory(),
                  settings.requestTimeout(),
                  settings.idleTimeout(),
                  settings.maxConnections()),
              EVENT_LOOPS,
              settings.transport());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while binding the HTTP port", e);
    }
    Gauge.builder("wharf_http_body_memory_held", server, HttpServer::bodyBytesHeld)
        .description("Request-body bytes held now (server.max_body_memory bounds them)")
        .baseUnit("bytes")
        .register(registry);
    FunctionCounter.builder("wharf_http_bodies_refused", server, HttpServer::bodiesRefused)
        .description("Request bodies refused with 503 because server.max_body_memory was full")
        .register(registry);
    Gauge.builder("wharf_http_connections_open", server, HttpServer::connectionsOpen)
        .description("Client connections open now (server.max_connections bounds them)")
        .register(registry);
    Gauge.builder("wharf_http_connections_max", server, HttpServer::maxConnections)
        .description(
            "The connection cap in force: server.max_connections, or less when the process's"
                + " file-descriptor limit leaves room for fewer")
        .register(registry);
    FunctionCounter.builder("wharf_http_accept_pauses", server, HttpServer::acceptPauses)
        .description("Times the server stopped accepting because server.max_connections was reached")
        .register(registry);
    FunctionCounter.builder("wharf_http_connections_refused", server, HttpServer::connectionsRefused)
        .description(
            "Connections answered 503 because they were accepted past server.max_connections")
        .register(registry);
    return new WharfHttp(broker, server);
  }

  private static List<String> consumerTokens(Broker broker) {
    List<String> all = new ArrayList<>();
    for (String queue : broker.queueNames()) {
      try {
        all.addAll(broker.settings(queue).consumerTokens());
      } catch (BrokerException.QueueNotFound gone) {
        // Deleted since it was listed: its tokens give no right any more.
      }
    }
    return all;
  }

  /** The transport the server runs on: the one configured, or the one {@code auto} picked. */
  public Transport transport() {
    return server.transport();
  }

  public int port() {
    return server.port();
  }

  /**
   * Stops cleanly: no new connection is accepted; every parked long-poll is answered (with
   * nothing, as when its wait runs out) and every stream ends with an {@code error} event; the
   * answers under way are written (see {@link HttpServer#close()} for the bound); then the
   * connections close.
   */
  @Override
  public void close() {
    server.stopAccepting();
    broker.stopWaiting();
    server.close();
  }
}
