package dev.wharf.http.server;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;

/**
 * What the HTTP decoder could not parse, and the refusal each failure gets: the connection answers
 * it and closes, since nothing else on it is trusted.
 */
final class DecoderFailures {
  private DecoderFailures() {}

  /** A request head the decoder could not parse: {@code connection} refuses it. */
  static void refuseHead(DecoderResult result, Connection connection) {
    Throwable cause = result.cause();
    if (cause instanceof TooLongHttpLineException) {
      connection.reject(414, "uri_too_long", "the request line is too long");
    } else if (cause instanceof TooLongHttpHeaderException
        || cause instanceof TooLongFrameException) {
      connection.reject(431, "headers_too_large", "the request headers are too large");
    } else {
      connection.reject(400, "invalid_request", "malformed HTTP request: " + cause.getMessage());
    }
  }

  /**
   * A body the decoder could not parse: its one line, a chunk's size line, is not the request
   * line (414), and its trailer fields are not the headers.
   */
  static void refuseBody(DecoderResult result, Connection connection) {
    Throwable cause = result.cause();
    if (cause instanceof TooLongHttpLineException) {
      connection.reject(400, "invalid_request", "a chunk-size line of the body is too long");
    } else if (cause instanceof TooLongHttpHeaderException) {
      connection.reject(400, "invalid_request", "the trailer fields of the body are too large");
    } else {
      refuseHead(result, connection);
    }
  }
}
