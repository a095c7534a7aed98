package dev.wharf.http;

import dev.wharf.core.Broker;
import dev.wharf.http.server.Handler;
import dev.wharf.http.server.Request;
import dev.wharf.http.server.Response;
import dev.wharf.http.server.Router;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Registers routes with what every route shares: the auth guard declared next to the route, error
 * rendering through {@link ErrorMapper}, the request timer by route template; and answers 405 and
 * 404 for everything else.
 */
public final class Endpoints {
  private static final Logger LOG = Logger.getLogger(Endpoints.class.getName());

  /** Who may call a route. DATA routes name their queue in the {@code {name}} path parameter. */
  public enum Guard {
    OPEN,
    MANAGEMENT,
    DATA,
    /**
     * A data route whose handler authorises the caller itself ({@link #authoriseData}), after it
     * took the queue's settings mark: a receive that may wait, which a token revoked between the
     * check and the wait must end (see {@code Broker.settingsMark}).
     */
    DATA_AFTER_MARK
  }

  public static final String GET = "GET";
  public static final String PUT = "PUT";
  public static final String POST = "POST";
  public static final String DELETE = "DELETE";

  /** No query parameters: what a native API route takes unless it names some. */
  public static final Set<String> NO_QUERY = Set.of();

  /**
   * Query parameters not checked at all: for routes outside the native API that probes and
   * scrapers call with whatever their configuration adds.
   */
  public static final Set<String> ANY_QUERY = null;

  private final Broker broker;
  private final Auth auth;
  private final HttpMetrics metrics;
  private final Router router = new Router(this::unmatched);
  private final Map<String, HttpMetrics.Route> fallbackTimers = new ConcurrentHashMap<>();
  /** Path prefixes no route serves, each with the 404 that says why better than "no route". */
  private final Map<String, ApiError> notFoundUnder = new ConcurrentHashMap<>();

  public Endpoints(Broker broker, Auth auth, HttpMetrics metrics) {
    this.broker = broker;
    this.auth = auth;
    this.metrics = metrics;
  }

  /** Adds a route that takes no query parameters. */
  public void add(String method, String template, Guard guard, Handler handler) {
    add(method, template, guard, NO_QUERY, handler);
  }

  /**
   * Adds a route that takes the query parameters {@code query}, each at most once; any other is a
   * 400 {@code invalid_param}. {@link #ANY_QUERY} checks none.
   */
  public void add(
      String method, String template, Guard guard, Set<String> query, Handler handler) {
    router.add(method, template, guarded(method, template, guard, query, handler));
  }

  /**
   * Adds a GET route that HEAD does not reach (a 405 there): for a GET whose answer changes
   * something, as a stream leases what it sends.
   */
  public void addGetOnly(String template, Guard guard, Set<String> query, Handler handler) {
    router.addGetOnly(template, guarded(GET, template, guard, query, handler));
  }

  /**
   * Adds a route whose handler never blocks: it answers at once or through {@link #whenDone}, so
   * a small request is handled on the event loop that read it.
   */
  public void addNonBlocking(String method, String template, Guard guard, Handler handler) {
    router.add(
        method,
        template,
        Handler.nonBlocking(guarded(method, template, guard, NO_QUERY, handler)));
  }

  /**
   * Answers {@code notFound} for every path under {@code prefix} that no route serves: for a
   * path whose parameter is empty, which no template matches.
   */
  public void notFoundUnder(String prefix, ApiError notFound) {
    notFoundUnder.put(prefix, notFound);
  }

  private Handler guarded(
      String method, String template, Guard guard, Set<String> query, Handler handler) {
    HttpMetrics.Route timer = metrics.route(template, method);
    return (req, res) -> {
      long started = System.nanoTime();
      try {
        authorise(req, guard);
        if (query != ANY_QUERY && req.hasQuery()) {
          if (guard == Guard.DATA_AFTER_MARK) {
            // Who may call is told before what is wrong with the call, as on every other route.
            authorise(req, Guard.DATA);
          }
          checkQuery(req, query);
        }
        handler.handle(req, res);
      } catch (Exception e) {
        fail(res, e);
      } finally {
        if (res.isLater() && !res.isSent()) {
          res.onAnswered(() -> timer.record(res.status(), System.nanoTime() - started));
        } else {
          timer.record(res.status(), System.nanoTime() - started);
        }
      }
    };
  }

  /** Renders the answer for a value a future gives. */
  @FunctionalInterface
  public interface Answer<T> {
    void send(Response res, T value);
  }

  /**
   * Answers once {@code pending} completes, on the connection's event loop: the value through
   * {@code answer}, a failure as its error. A cancelled future answers nothing (its client left).
   */
  public static <T> void whenDone(Response res, CompletableFuture<T> pending, Answer<T> answer) {
    res.later();
    pending.whenCompleteAsync(
        (value, failure) -> {
          if (pending.isCancelled()) {
            return;
          }
          try {
            if (failure != null) {
              fail(res, Broker.unwrap(failure));
            } else {
              answer.send(res, value);
            }
          } catch (RuntimeException e) {
            fail(res, e);
          }
        },
        res.executor());
  }

  /** Every route added, as one handler for the server. */
  public Handler handler() {
    return router;
  }

  /** 405 on a path some route serves with other methods, else a JSON 404. */
  private void unmatched(Request req, Response res, String template, String allowed) {
    if (template != null) {
      res.header("Allow", allowed);
      answer(
          req,
          res,
          template,
          new ApiError(
              405,
              "method_not_allowed",
              req.method() + " is not allowed here; use " + allowed));
    } else {
      for (Map.Entry<String, ApiError> e : notFoundUnder.entrySet()) {
        if (req.path().startsWith(e.getKey())) {
          answer(req, res, e.getKey(), e.getValue());
          return;
        }
      }
      answer(req, res, "unmatched", new ApiError(404, "not_found", "no route for " + req.path()));
    }
  }

  private void answer(Request req, Response res, String template, ApiError e) {
    long started = System.nanoTime();
    fail(res, e);
    String method = methodLabel(req.method());
    fallbackTimers
        .computeIfAbsent(template + ' ' + method, k -> metrics.route(template, method))
        .record(e.status(), System.nanoTime() - started);
  }

  /** HTTP's own methods, the only ones that name a series of their own. */
  private static final Set<String> KNOWN_METHODS =
      Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT");

  /**
   * The method as a metric label: any client may send a method of its own making, and each would
   * otherwise add a histogram to every scrape, for as long as the server runs.
   */
  static String methodLabel(String method) {
    return KNOWN_METHODS.contains(method) ? method : "OTHER";
  }

  /**
   * A misspelt parameter silently ignored reads as a filter or limit that was applied when it was
   * not, and of a repeated one only the first would count: both are refused.
   */
  private static void checkQuery(Request req, Set<String> allowed) {
    for (Map.Entry<String, List<String>> p : req.query().entrySet()) {
      if (!allowed.contains(p.getKey())) {
        throw ApiError.invalidParam("unknown query parameter \"" + p.getKey() + "\"");
      }
      if (p.getValue().size() > 1) {
        throw ApiError.invalidParam(p.getKey() + " is given more than once");
      }
    }
  }

  /**
   * Checks a data route's caller again, for a request that goes on answering after the queue's
   * tokens may have changed (a stream).
   */
  public void authoriseData(Request req) {
    authorise(req, Guard.DATA);
  }

  private void authorise(Request req, Guard guard) {
    switch (guard) {
      case OPEN -> {}
      case MANAGEMENT -> auth.management(req);
      case DATA -> auth.data(req, broker.consumerTokens(req.param("name")));
      case DATA_AFTER_MARK -> {}
    }
  }

  /** Answers with the error {@code e} maps to, unless an answer already went out. */
  public static void fail(Response res, Throwable e) {
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
