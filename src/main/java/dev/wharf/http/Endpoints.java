package dev.wharf.http;

import dev.wharf.core.Broker;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Registers routes with what every route shares: the auth guard declared next to the route, error
 * rendering through {@link ErrorMapper}, the request timer by route template, and afterwards the
 * 405 and 404 answers for everything else.
 */
public final class Endpoints {
  private static final Logger LOG = Logger.getLogger(Endpoints.class.getName());

  /** Who may call a route. DATA routes name their queue in the {@code {name}} path parameter. */
  public enum Guard {
    OPEN,
    MANAGEMENT,
    DATA
  }

  private final Broker broker;
  private final Auth auth;
  private final HttpMetrics metrics;
  private final Map<String, StringJoiner> methodsByTemplate = new LinkedHashMap<>();

  public Endpoints(Broker broker, Auth auth, HttpMetrics metrics) {
    this.broker = broker;
    this.auth = auth;
    this.metrics = metrics;
  }

  public void add(HttpRules rules, Method method, String template, Guard guard, Handler handler) {
    methodsByTemplate
        .computeIfAbsent(template, t -> new StringJoiner(", "))
        .add(method.text());
    String methodName = method.text();
    rules.route(
        method,
        template,
        (req, res) -> {
          long started = System.nanoTime();
          try {
            authorise(req, guard);
            handler.handle(req, res);
          } catch (Exception e) {
            fail(res, e);
          } finally {
            metrics.record(template, methodName, res.status().code(), System.nanoTime() - started);
          }
        });
  }

  /** Call once every service is registered: 405 on known paths, then JSON 404 for the rest. */
  public void fallbacks(HttpRouting.Builder routing) {
    methodsByTemplate.forEach(
        (template, methods) -> {
          String allow = methods.toString();
          routing.any(
              template,
              (req, res) -> {
                res.header(HeaderNames.ALLOW, allow);
                answer(req, res, template,
                    new ApiError(405, "method_not_allowed",
                        req.prologue().method().text() + " is not allowed here; use " + allow));
              });
        });
    routing.any(
        (req, res) ->
            answer(req, res, "unmatched",
                new ApiError(404, "not_found", "no route for " + req.path().path())));
  }

  private void answer(ServerRequest req, ServerResponse res, String template, ApiError e) {
    long started = System.nanoTime();
    Replies.error(res, e);
    metrics.record(template, req.prologue().method().text(), e.status(), System.nanoTime() - started);
  }

  private void authorise(ServerRequest req, Guard guard) {
    switch (guard) {
      case OPEN -> {}
      case MANAGEMENT -> auth.management(req);
      case DATA ->
          auth.data(req, broker.settings(req.path().pathParameters().get("name")).consumerTokens());
    }
  }

  private static void fail(ServerResponse res, Exception e) {
    if (res.isSent()) {
      LOG.log(Level.FINE, "failure after the answer was sent", e);
      return;
    }
    try {
      Replies.error(res, ErrorMapper.toApiError(e));
    } catch (RuntimeException again) {
      // The client is most likely gone; nothing more can be told to it.
      LOG.log(Level.FINE, "could not write an error answer", again);
    }
  }
}
