package dev.wharf.http;

import dev.wharf.core.BrokerException;
import dev.wharf.http.server.BadRequest;
import java.util.logging.Level;
import java.util.logging.Logger;

/** The one place where failures become wire errors. */
public final class ErrorMapper {
  private static final Logger LOG = Logger.getLogger(ErrorMapper.class.getName());

  private ErrorMapper() {}

  public static ApiError toApiError(Throwable t) {
    if (t instanceof ApiError a) {
      return a;
    }
    if (t instanceof BrokerException b) {
      return switch (b) {
        case BrokerException.Invalid e -> ApiError.invalidBody(e.getMessage());
        case BrokerException.QueueNotFound e ->
            new ApiError(404, "queue_not_found", e.getMessage());
        case BrokerException.MessageNotFound e ->
            new ApiError(404, "message_not_found", e.getMessage());
        case BrokerException.TooManyWaiters e ->
            new ApiError(503, "too_many_waiters", e.getMessage(), "1");
        // A storage failure passes (a full disk is freed, a database comes back) without the
        // client doing anything different: the same request is worth retrying, and Retry-After
        // says when, so clients back off instead of hammering a server that cannot write.
        case BrokerException.Unavailable e ->
            new ApiError(503, "unavailable", e.getMessage(), "1");
      };
    }
    if (t instanceof BadRequest e) {
      // Something in the request itself could not be read: a bad escape, a bad header value.
      return new ApiError(400, e.code(), e.getMessage());
    }
    LOG.log(Level.WARNING, "unexpected failure while handling a request", t);
    return new ApiError(500, "internal", "internal error");
  }
}
