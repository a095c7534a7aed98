package dev.wharf.http.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connections the server keeps open at once. Each costs a file descriptor, and the process
 * shares its descriptors with the database: past the process's limit every accept fails and the
 * store cannot open a file either. At the cap the listener stops accepting, so new connections
 * wait in the kernel's accept queue until one closes, as a load balancer in front would make them
 * wait. The listener reads a burst of pending connections at a time, so a few may arrive past the
 * cap before it pauses; those get a 503 at once and are closed, never served.
 */
final class ConnectionCap {
  private final int limit;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong pauses = new AtomicLong();
  private final byte[] refusal;
  private volatile Channel listener;

  ConnectionCap(int limit, ErrorBody errors) {
    if (limit < 1) {
      throw new IllegalArgumentException("need at least one connection");
    }
    this.limit = limit;
    byte[] body =
        errors.render(
            503,
            "server_busy",
            "the server has as many connections open as server.max_connections allows;"
                + " retry shortly");
    String head =
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
            + "content-length: " + body.length + "\r\nretry-after: 1\r\nconnection: close\r\n\r\n";
    byte[] h = head.getBytes(StandardCharsets.US_ASCII);
    refusal = new byte[h.length + body.length];
    System.arraycopy(h, 0, refusal, 0, h.length);
    System.arraycopy(body, 0, refusal, h.length, body.length);
  }

  /** The listening channel, once bound: the one paused and resumed. */
  void listening(Channel channel) {
    listener = channel;
    if (open.get() >= limit) {
      pause();
    }
  }

  /**
   * Counts a connection just accepted; false when it is past the cap and has been answered 503 and
   * closed instead. Either way its close gives its place back.
   */
  boolean admit(Channel ch) {
    int n = open.incrementAndGet();
    ch.closeFuture().addListener(f -> closed());
    if (n >= limit) {
      pause();
    }
    if (n <= limit) {
      return true;
    }
    refused.incrementAndGet();
    // Its request may be on the way already: the answer must not be lost to a reset.
    ch.writeAndFlush(Unpooled.wrappedBuffer(refusal)).addListener(LingeringClose.AFTER_WRITE);
    return false;
  }

  private void closed() {
    if (open.decrementAndGet() < limit) {
      Channel l = listener;
      if (l != null && !l.config().isAutoRead()) {
        l.config().setAutoRead(true);
      }
    }
  }

  private void pause() {
    Channel l = listener;
    if (l != null && l.config().isAutoRead()) {
      l.config().setAutoRead(false);
      pauses.incrementAndGet();
      // A close may have come between the count and the pause; it would not have resumed.
      if (open.get() < limit) {
        l.config().setAutoRead(true);
      }
    }
  }

  int limit() {
    return limit;
  }

  int open() {
    return open.get();
  }

  long refused() {
    return refused.get();
  }

  long pauses() {
    return pauses.get();
  }
}
