package dev.wharf.http.server;

/** What answers a request. It runs on a virtual thread of its own and may block. */
@FunctionalInterface
public interface Handler {
  void handle(Request req, Response res) throws Exception;
}
