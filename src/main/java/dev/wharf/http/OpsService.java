package dev.wharf.http;

import static dev.wharf.http.Endpoints.Guard.OPEN;

import dev.wharf.core.Broker;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;

/** Liveness, readiness and Prometheus metrics; open to everyone. */
public final class OpsService implements HttpService {
  private static final byte[] OK = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);
  private static final byte[] READY = "{\"status\":\"ready\"}".getBytes(StandardCharsets.UTF_8);

  private final Broker broker;
  private final PrometheusMeterRegistry registry;
  private final Endpoints endpoints;

  public OpsService(Broker broker, PrometheusMeterRegistry registry, Endpoints endpoints) {
    this.broker = broker;
    this.registry = registry;
    this.endpoints = endpoints;
  }

  @Override
  public void routing(HttpRules rules) {
    endpoints.add(rules, Method.GET, "/healthz", OPEN, this::health);
    endpoints.add(rules, Method.GET, "/readyz", OPEN, this::ready);
    endpoints.add(rules, Method.GET, "/metrics", OPEN, this::metrics);
  }

  private void health(ServerRequest req, ServerResponse res) {
    Replies.send(res, 200, OK);
  }

  private void ready(ServerRequest req, ServerResponse res) {
    boolean up;
    try {
      up = broker.healthy();
    } catch (RuntimeException e) {
      up = false;
    }
    if (!up) {
      throw new ApiError(503, "unavailable", "storage is not answering");
    }
    Replies.send(res, 200, READY);
  }

  private void metrics(ServerRequest req, ServerResponse res) {
    res.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    res.send(registry.scrape().getBytes(StandardCharsets.UTF_8));
  }
}
