package dev.wharf.http.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Routes by method and path template ({@code /v1/queues/{name}/messages}); a {@code {param}}
 * matches one whole path segment. Routes are tried in the order they were added.
 */
public final class Router implements Handler {
  /** What answers a request no route takes; it must not block. */
  @FunctionalInterface
  public interface Unmatched {
    /**
     * @param template a template whose path matches under another method (so a 405), or null
     * @param allowed the methods that template is served with
     */
    void handle(Request req, Response res, String template, String allowed) throws Exception;
  }

  /**
   * @param params for each segment of the template, the name of the parameter it binds, or null
   *     where the segment is literal
   * @param headAsGet a GET route that also answers HEAD
   */
  private record Route(
      String method,
      String template,
      String[] segments,
      String[] params,
      Handler handler,
      boolean headAsGet) {}

  private final List<Route> routes = new ArrayList<>();
  /** For each template, the methods it answers, as an {@code Allow} header lists them. */
  private final Map<String, Set<String>> methods = new LinkedHashMap<>();
  private final Unmatched unmatched;

  public Router(Unmatched unmatched) {
    this.unmatched = unmatched;
  }

  /** Adds a route; a GET route also answers HEAD, with the same headers and no body. */
  public void add(String method, String template, Handler handler) {
    add(method, template, handler, method.equals("GET"));
  }

  /**
   * Adds a GET route that HEAD does not reach, for a GET whose answer does more than read: a HEAD
   * must change nothing (RFC 9110 9.3.2), and an event stream leases each message it sends. HEAD
   * on its path is a 405.
   */
  public void addGetOnly(String template, Handler handler) {
    add("GET", template, handler, false);
  }

  private void add(String method, String template, Handler handler, boolean headAsGet) {
    if (!template.startsWith("/")) {
      throw new IllegalArgumentException("a template starts with /: " + template);
    }
    String[] segments = template.substring(1).split("/", -1);
    String[] params = new String[segments.length];
    for (int i = 0; i < segments.length; i++) {
      String t = segments[i];
      if (t.length() > 2 && t.charAt(0) == '{' && t.charAt(t.length() - 1) == '}') {
        params[i] = t.substring(1, t.length() - 1);
      }
    }
    routes.add(new Route(method, template, segments, params, handler, headAsGet));
    Set<String> served = methods.computeIfAbsent(template, t -> new LinkedHashSet<>());
    served.add(method);
    if (headAsGet) {
      served.add("HEAD");
    }
  }

  @Override
  public void handle(Request req, Response res) throws Exception {
    route(req).handle(req, res);
  }

  /** Finds the route for a request and binds its path parameters; 405 and 404 otherwise. */
  @Override
  public Handler route(Request req) {
    String[] segments = segments(req.path());
    Handler found = match(req, req.method(), segments, false);
    if (found == null && req.method().equals("HEAD")) {
      // HEAD is GET without the body (the transport drops it), where no route serves HEAD itself.
      found = match(req, "GET", segments, true);
    }
    if (found != null) {
      return found;
    }
    for (Route r : routes) {
      if (bind(r, segments) != null) {
        String allowed = String.join(", ", methods.get(r.template));
        return Handler.nonBlocking((q, res) -> unmatched.handle(q, res, r.template, allowed));
      }
    }
    return Handler.nonBlocking((q, res) -> unmatched.handle(q, res, null, null));
  }

  /**
   * The handler of the first route for {@code method} whose path matches, its parameters bound
   * into {@code req}; null when there is none.
   *
   * @param forHead only routes that also answer HEAD
   */
  private Handler match(Request req, String method, String[] segments, boolean forHead) {
    for (Route r : routes) {
      if (r.method.equals(method) && (r.headAsGet || !forHead)) {
        Map<String, String> params = bind(r, segments);
        if (params != null) {
          req.params(params);
          return r.handler;
        }
      }
    }
    return null;
  }

  private static String[] segments(String path) {
    return (path.startsWith("/") ? path.substring(1) : path).split("/", -1);
  }

  private static Map<String, String> bind(Route r, String[] segments) {
    if (segments.length != r.segments.length) {
      return null;
    }
    // Matched first, bound after: a request is tried against most routes, and a map for each
    // that shares its first segments was ~0.5 KB of garbage a request.
    int bound = 0;
    for (int i = 0; i < segments.length; i++) {
      if (r.params[i] != null) {
        if (segments[i].isEmpty()) {
          return null;
        }
        bound++;
      } else if (!r.segments[i].equals(segments[i])) {
        return null;
      }
    }
    if (bound == 0) {
      return Map.of();
    }
    Map<String, String> params = new HashMap<>(4);
    for (int i = 0; i < segments.length; i++) {
      if (r.params[i] != null) {
        params.put(r.params[i], segments[i]);
      }
    }
    return params;
  }
}
