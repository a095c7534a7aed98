package dev.wharf.http;

/**
 * A failure that already knows its wire form: status, code and detail. Handlers throw it for bad
 * input; {@link ErrorMapper} turns core failures into one.
 */
public final class ApiError extends RuntimeException {
  private final int status;
  private final String code;
  private final String retryAfter;

  public ApiError(int status, String code, String detail) {
    this(status, code, detail, null);
  }

  public ApiError(int status, String code, String detail, String retryAfter) {
    super(detail, null, false, false);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }

  public static ApiError invalidBody(String detail) {
    return new ApiError(400, "invalid_body", detail);
  }

  public static ApiError invalidParam(String detail) {
    return new ApiError(400, "invalid_param", detail);
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  public String detail() {
    return getMessage();
  }

  /** Seconds for a Retry-After header, or null. */
  public String retryAfter() {
    return retryAfter;
  }
}
