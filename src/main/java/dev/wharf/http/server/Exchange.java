package dev.wharf.http.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One request and its answer on a connection. The handler's thread writes; the event loop tells it
 * when the client leaves, and hands the connection to the next request once the answer is out.
 */
final class Exchange {
  private final ChannelHandlerContext ctx;
  private final Connection connection;
  private final HttpVersion version;
  private final boolean keepAlive;
  private final boolean head;
  /** Event loop only; zero once given back. */
  private long bodyBytes;
  private final Object lock = new Object();
  private Runnable onDisconnect;
  private boolean disconnected;
  /** An event stream was started and has not ended. */
  private boolean streaming;
  /** Whether the connection stays open once the stream ends; set when it starts. */
  private volatile boolean streamKeepsOpen;

  /**
   * @param head a HEAD request: the answer's headers say what GET would send, with no body
   * @param bodyBytes what the request's body took of the server's {@link BodyBudget}
   */
  Exchange(
      ChannelHandlerContext ctx,
      Connection connection,
      HttpVersion version,
      boolean keepAlive,
      boolean head,
      long bodyBytes) {
    this.ctx = ctx;
    this.connection = connection;
    this.version = version;
    this.keepAlive = keepAlive;
    this.head = head;
    this.bodyBytes = bodyBytes;
  }

  /** On the event loop: what the body took goes back to {@code budget}, once. */
  void giveBackBody(BodyBudget budget) {
    budget.give(bodyBytes);
    bodyBytes = 0;
  }

  java.util.concurrent.Executor executor() {
    return connection.executor();
  }

  boolean connected() {
    synchronized (lock) {
      return !disconnected && ctx.channel().isActive();
    }
  }

  void onDisconnect(Runnable action) {
    boolean gone;
    synchronized (lock) {
      gone = disconnected;
      if (!gone) {
        onDisconnect = action;
      }
    }
    if (gone) {
      HandlerDispatch.detached(action);
    } else if (connection.inputHasEnded()) {
      // The client shut its side before the action was set, so the connection (which checks in
      // the other order) did not see it: closing runs it, as the connection would have.
      ctx.close();
    }
  }

  /**
   * Whether the answer waits on the client: its handler asked to hear if the client leaves (a
   * long-poll), or it streams. Once the client's input ends such an answer is not waited for.
   */
  boolean waitsOnClient() {
    synchronized (lock) {
      return onDisconnect != null || streaming;
    }
  }

  /** On the event loop: the connection closed. */
  void disconnected() {
    Runnable action;
    synchronized (lock) {
      disconnected = true;
      action = onDisconnect;
      onDisconnect = null;
    }
    if (action != null) {
      HandlerDispatch.detached(action);
    }
  }

  /** The answer is out: a disconnect from now on concerns the next request, not this one. */
  private void answered() {
    synchronized (lock) {
      onDisconnect = null;
      streaming = false;
    }
  }

  void sendFull(int status, HttpHeaders headers, byte[] body, Runnable ifUndelivered) {
    if (!ctx.channel().isActive()) {
      if (ifUndelivered != null) {
        ifUndelivered.run();
      }
      throw new ClientGone("the client closed the connection", null);
    }
    DefaultFullHttpResponse res =
        new DefaultFullHttpResponse(
            version,
            HttpResponseStatus.valueOf(status),
            head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body),
            headers,
            HttpHeaders.EMPTY_HEADERS);
    HttpUtil.setContentLength(res, body.length);
    boolean keepOpen = connection.keepsOpen(keepAlive);
    HttpUtil.setKeepAlive(res, keepOpen);
    ctx.writeAndFlush(res)
        .addListener(
            (ChannelFuture f) -> {
              answered();
              if (!f.isSuccess() && ifUndelivered != null) {
                HandlerDispatch.detached(ifUndelivered);
              }
              connection.finished(this, keepOpen && f.isSuccess());
            });
  }

  void startStream(int status, HttpHeaders headers) {
    if (head) {
      // The encoder would drop every event and the stream would never end: see Router#addGetOnly.
      throw new IllegalStateException("a HEAD request cannot be answered with an event stream");
    }
    Thread streamer = Thread.currentThread();
    synchronized (lock) {
      streaming = true;
      if (onDisconnect == null) {
        // A stream learns its client left at once, not at its next write: parked for messages
        // meanwhile, it would take some from publishers only to give them back, their place lost.
        onDisconnect = streamer::interrupt;
      }
    }
    if (connection.inputHasEnded()) {
      // As for a long-poll (see onDisconnect): a stream to a client that may be gone is not begun.
      ctx.close();
      throw new ClientGone("the client shut its side of the connection", null);
    }
    DefaultHttpResponse res =
        new DefaultHttpResponse(version, HttpResponseStatus.valueOf(status), headers);
    // HTTP/1.0 has no chunked coding (RFC 9112 6.1): there the body ends with the connection.
    boolean chunked = !version.equals(HttpVersion.HTTP_1_0);
    streamKeepsOpen = chunked && connection.keepsOpen(keepAlive);
    if (chunked) {
      headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      HttpUtil.setKeepAlive(res, streamKeepsOpen);
    } else {
      headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    await(ctx.writeAndFlush(res));
  }

  void writeChunk(byte[] bytes) {
    await(ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(bytes))));
  }

  void endStream() {
    if (!ctx.channel().isActive()) {
      answered();
      return;
    }
    ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT)
        .addListener(
            (ChannelFuture f) -> {
              answered();
              connection.finished(this, streamKeepsOpen && f.isSuccess());
            });
  }

  /**
   * Waits for a write without Netty's own await, which blocks in {@code Object.wait}: a virtual
   * thread parks here instead.
   */
  private static void await(ChannelFuture write) {
    if (write.isDone()) {
      // Already failed, as a write is once the event loops have stopped: a listener would be
      // notified on the stopped loop, that is never.
      if (!write.isSuccess()) {
        throw new ClientGone("the write to the client failed", write.cause());
      }
      return;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    write.addListener(
        (ChannelFuture f) -> {
          if (f.isSuccess()) {
            done.complete(null);
          } else {
            done.completeExceptionally(f.cause());
          }
        });
    try {
      done.join();
    } catch (CompletionException e) {
      throw new ClientGone("the write to the client failed", e.getCause());
    }
  }
}
