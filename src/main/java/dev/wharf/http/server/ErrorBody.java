package dev.wharf.http.server;

/**
 * Renders the answers the transport gives by itself (a request line too long, a body that is not
 * valid HTTP) in the same JSON shape as every other error.
 */
@FunctionalInterface
public interface ErrorBody {
  byte[] render(int status, String code, String detail);
}
