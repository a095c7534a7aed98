package dev.wharf.http.server;

import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * The body of the request a connection is reading, gathered whole, and what it took of the
 * server's {@link BodyBudget}. A body of a declared length takes its share before its bytes come,
 * a chunked one chunk by chunk; once the body is read, its share goes with it to its exchange,
 * which gives it back when the answer is out. Event loop only.
 */
final class BodyBeingRead {
  /** What became of bytes offered to {@link #append}. */
  enum Appended {
    KEPT,
    /** The body would grow past {@code maxBody}: refused as too large. */
    TOO_LARGE,
    /** The budget has no room for them: the server is busy. */
    OVER_BUDGET
  }

  private final long maxBody;
  private final BodyBudget budget;
  private byte[] body;
  private int filled;
  private ByteArrayOutputStream chunked;
  // What the body being read took of the budget; once it is read, its exchange holds it.
  private long reading;

  BodyBeingRead(long maxBody, BodyBudget budget) {
    this.maxBody = maxBody;
    this.budget = budget;
  }

  /** A request's head came: whatever body it has is still to come. */
  void reset() {
    filled = 0;
    body = null;
    chunked = null;
  }

  /** Whether a body of {@code length} bytes is past {@code maxBody}. */
  boolean tooLarge(long length) {
    return length > maxBody;
  }

  /** A body of the length declared follows: false, and nothing taken, if it does not fit. */
  boolean sized(long declared) {
    if (!take(declared)) {
      return false;
    }
    body = new byte[(int) declared];
    return true;
  }

  /** A chunked body follows, of a length known once it ends. */
  void chunked() {
    chunked = new ByteArrayOutputStream();
  }

  Appended append(ByteBuf bytes) {
    int n = bytes.readableBytes();
    if (n == 0) {
      return Appended.KEPT;
    }
    if (chunked == null) {
      // The codec frames a body as RFC 9112 6.3 does: by its Content-Length, the bytes after it
      // being the next request, and a request with neither a length nor chunked coding has no
      // body. So content comes only for a body being gathered, and never past its length.
      bytes.readBytes(body, filled, n);
      filled += n;
      return Appended.KEPT;
    }
    if (tooLarge(chunked.size() + (long) n)) {
      return Appended.TOO_LARGE;
    }
    if (!take(n)) {
      return Appended.OVER_BUDGET;
    }
    try {
      bytes.readBytes(chunked, n);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return Appended.KEPT;
  }

  /** The body read whole; null for a request with none. */
  byte[] bytes() {
    return chunked != null ? chunked.toByteArray() : body;
  }

  /** The body is read: what it took of the budget, from now on its exchange's to give back. */
  long handOver() {
    long taken = reading;
    reading = 0;
    body = null;
    chunked = null;
    return taken;
  }

  /** Forgets the body so far and gives back what it took of the budget. */
  void drop() {
    body = null;
    chunked = null;
    budget.give(reading);
    reading = 0;
  }

  /** Takes {@code n} bytes of the budget for the body being read, if they fit. */
  private boolean take(long n) {
    if (!budget.take(n)) {
      return false;
    }
    reading += n;
    return true;
  }
}
