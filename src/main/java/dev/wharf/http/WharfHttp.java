package dev.wharf.http;

import dev.wharf.core.Broker;
import dev.wharf.http.nativeapi.DeadLetterService;
import dev.wharf.http.nativeapi.MessagesService;
import dev.wharf.http.nativeapi.QueuesService;
import dev.wharf.http.nativeapi.SettleService;
import dev.wharf.http.nativeapi.StreamService;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.atomic.AtomicBoolean;

/** The HTTP server: the native API under {@code /v1}, health, readiness and metrics. */
public final class WharfHttp implements AutoCloseable {
  private final WebServer server;
  private final AtomicBoolean closing;

  private WharfHttp(WebServer server, AtomicBoolean closing) {
    this.server = server;
    this.closing = closing;
  }

  public static WharfHttp start(
      Broker broker, PrometheusMeterRegistry registry, HttpSettings settings) {
    AtomicBoolean closing = new AtomicBoolean();
    Endpoints endpoints =
        new Endpoints(
            broker,
            new Auth(settings.adminToken(), settings.requireTokens()),
            new HttpMetrics(registry));
    RequestBodies bodies = new RequestBodies(settings.maxBodyBytes());
    HttpRouting.Builder routing = HttpRouting.builder();
    routing.register(
        new OpsService(broker, registry, endpoints),
        new QueuesService(broker, endpoints, bodies),
        new MessagesService(broker, endpoints, bodies),
        new SettleService(broker, endpoints, bodies),
        new StreamService(broker, endpoints, settings.sseKeepalive(), closing::get),
        new DeadLetterService(broker, endpoints, bodies));
    endpoints.fallbacks(routing);
    routing.error(
        Throwable.class,
        (req, res, t) -> Replies.error(res, ErrorMapper.toApiError(t)));
    WebServer server =
        WebServer.builder()
            .host(settings.host())
            .port(settings.port())
            .routing(routing)
            .shutdownHook(false)
            .build()
            .start();
    return new WharfHttp(server, closing);
  }

  public int port() {
    return server.port();
  }

  @Override
  public void close() {
    closing.set(true);
    server.stop();
  }
}
