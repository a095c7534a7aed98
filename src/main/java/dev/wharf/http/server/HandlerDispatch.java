package dev.wharf.http.server;

import java.util.concurrent.ThreadFactory;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where a request's handler runs, and what is answered when it answers nothing: on the event loop
 * when it never blocks and the request is small, else on a virtual thread of its own. Work that
 * follows an answer and may block runs on a virtual thread too, off the event loop.
 */
final class HandlerDispatch {
  private static final Logger LOG = Logger.getLogger(HandlerDispatch.class.getName());
  private static final ThreadFactory THREADS = Thread.ofVirtual().name("wharf-http").factory();
  private static final ThreadFactory DETACHED =
      Thread.ofVirtual().name("wharf-http-after").factory();
  /**
   * The largest body a non-blocking handler takes on the event loop; a larger one is parsed on a
   * thread of its own, so one big batch does not hold up every other connection's bytes.
   */
  static final int INLINE_BODY = 16 * 1024;

  private HandlerDispatch() {}

  /** On the event loop: runs {@code route} for the request whose turn it is. */
  static void start(Handler route, Exchange ex, Request req, ErrorBody errors) {
    if (route.nonBlocking() && req.body().length <= INLINE_BODY) {
      answer(route, ex, req, errors);
    } else {
      THREADS.newThread(() -> answer(route, ex, req, errors)).start();
    }
  }

  /** Runs follow-up work that may block, off the event loop. */
  static void detached(Runnable action) {
    DETACHED.newThread(action).start();
  }

  private static void answer(Handler route, Exchange ex, Request req, ErrorBody errors) {
    Response res = new Response(ex);
    try {
      route.handle(req, res);
    } catch (Throwable t) {
      LOG.log(Level.WARNING, "a handler failed", t);
    }
    if (!res.isSent() && !res.isLater()) {
      try {
        res.status(500).header("content-type", "application/json");
        res.send(errors.render(500, "internal", "internal error"));
      } catch (RuntimeException e) {
        LOG.log(Level.FINE, "could not answer", e);
      }
    }
  }
}
