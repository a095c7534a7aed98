package dev.wharf.http;

import static dev.wharf.http.Endpoints.Guard.OPEN;

import dev.wharf.core.Broker;
import dev.wharf.http.server.Request;
import dev.wharf.http.server.Response;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;

/** Liveness, readiness and Prometheus metrics; open to everyone. */
public final class OpsService {
  private static final byte[] OK = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);
  private static final byte[] READY = "{\"status\":\"ready\"}".getBytes(StandardCharsets.UTF_8);

  private final Broker broker;
  private final PrometheusMeterRegistry registry;
  private final Endpoints endpoints;
  private final PlatformScrapes scrapes = new PlatformScrapes();

  public OpsService(Broker broker, PrometheusMeterRegistry registry, Endpoints endpoints) {
    this.broker = broker;
    this.registry = registry;
    this.endpoints = endpoints;
  }

  public void routes() {
    endpoints.add(Endpoints.GET, "/healthz", OPEN, Endpoints.ANY_QUERY, this::health);
    endpoints.add(Endpoints.GET, "/readyz", OPEN, Endpoints.ANY_QUERY, this::ready);
    endpoints.add(Endpoints.GET, "/metrics", OPEN, Endpoints.ANY_QUERY, this::metrics);
  }

  /**
   * Alive unless storage refuses writes until a restart: a liveness probe's failure is what gets
   * the process restarted, where readiness would only hold traffic back for good.
   */
  private void health(Request req, Response res) {
    String why;
    try {
      why = broker.needsRestart();
    } catch (RuntimeException e) {
      // Storage that cannot say is not storage that asked for a restart: readiness reports it.
      why = null;
    }
    if (why != null) {
      throw new ApiError(503, "unavailable", why);
    }
    Replies.send(res, 200, OK);
  }

  private void ready(Request req, Response res) {
    String why;
    try {
      why = broker.unready();
    } catch (RuntimeException e) {
      why = "storage is not answering";
    }
    if (why != null) {
      // As every other unavailable answer: a probe or a client polling readiness backs off.
      throw new ApiError(503, "unavailable", why, "1");
    }
    Replies.send(res, 200, READY);
  }

  private void metrics(Request req, Response res) {
    res.header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    res.send(
        scrapes.run(
            () -> {
              broker.scrapeStarting();
              return registry.scrape().getBytes(StandardCharsets.UTF_8);
            }));
  }
}
