package dev.wharf.http.server;

/** A request the transport could read but not make sense of: a bad escape, a bad header value. */
public final class BadRequest extends RuntimeException {
  public BadRequest(String message) {
    super(message, null, false, false);
  }
}
