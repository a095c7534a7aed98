package dev.wharf.http.server;

/**
 * What answers a request. It runs on a virtual thread of its own and may block, unless it says it
 * never does: then a small request runs it on the connection's event loop, with no thread handed
 * the request and none woken for its answer.
 */
@FunctionalInterface
public interface Handler {
  void handle(Request req, Response res) throws Exception;

  /**
   * Whether it never blocks: it checks, starts work that completes a future, and answers from
   * that future ({@link Response#later()}), or answers at once.
   */
  default boolean nonBlocking() {
    return false;
  }

  /** The handler that takes this request: for a router, the matched route's. */
  default Handler route(Request req) {
    return this;
  }

  /** {@code handler}, declared never to block. */
  static Handler nonBlocking(Handler handler) {
    return new Handler() {
      @Override
      public void handle(Request req, Response res) throws Exception {
        handler.handle(req, res);
      }

      @Override
      public boolean nonBlocking() {
        return true;
      }
    };
  }
}
