package dev.wharf.http.server;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * The one request a connection refuses, and its answer: a JSON error that closes the connection.
 * Nothing read after a refused request is taken, so there is never a second. The answer may not
 * overtake those owed to the requests read before it: it waits here until they are out. Event
 * loop only.
 */
final class Refusal {
  private final ErrorBody errors;
  // A request was refused: nothing read after it is taken, and the connection closes once its
  // refusal is out. The refusal waits in owed while answers to requests before it are owed.
  private boolean made;
  private DefaultFullHttpResponse owed;

  Refusal(ErrorBody errors) {
    this.errors = errors;
  }

  /** Whether a request was refused: nothing read after it is taken. */
  boolean made() {
    return made;
  }

  /**
   * The answer that refuses the request being read, or null when one was refused before it:
   * nothing after that one is answered.
   */
  DefaultFullHttpResponse make(int status, String code, String detail, String retryAfter) {
    if (made) {
      return null;
    }
    made = true;
    DefaultFullHttpResponse res =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(status),
            Unpooled.wrappedBuffer(errors.render(status, code, detail)));
    res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
    if (retryAfter != null) {
      res.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfter);
    }
    HttpUtil.setContentLength(res, res.content().readableBytes());
    HttpUtil.setKeepAlive(res, false);
    return res;
  }

  /** Answers to requests read before the refused one are owed: its answer waits for them. */
  void owe(DefaultFullHttpResponse res) {
    owed = res;
  }

  /** The answer that waited, now to be written; null when none waits. */
  DefaultFullHttpResponse takeOwed() {
    DefaultFullHttpResponse res = owed;
    owed = null;
    return res;
  }

  /** The connection closes before the answer that waits could go: it is never written. */
  void dropOwed() {
    if (owed != null) {
      owed.release();
      owed = null;
    }
  }
}
