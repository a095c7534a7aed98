package dev.wharf.http.server;

/** A request the transport could read but not make sense of: a bad escape, a bad header value. */
public final class BadRequest extends RuntimeException {
  private final String code;

  /** An {@code invalid_request}: the request line or a header. */
  public BadRequest(String message) {
    this("invalid_request", message);
  }

  /** @param code the error code answered, for a part with a code of its own (the query) */
  public BadRequest(String code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  public String code() {
    return code;
  }
}
