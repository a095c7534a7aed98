package dev.wharf.http.server;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The answer to one request: a status, headers, then either one body or an event stream. Written
 * from the handler's thread; the bytes leave on the connection's event loop.
 */
public final class Response {
  private final Exchange exchange;
  private final HttpHeaders headers = new DefaultHttpHeaders(false);
  private volatile int status = 200;
  private boolean sent;
  private boolean later;
  private Runnable onAnswered;

  Response(Exchange exchange) {
    this.exchange = exchange;
  }

  public Response status(int code) {
    this.status = code;
    return this;
  }

  /**
   * Runs tasks on the connection's event loop, where the answer is written without a hand-off:
   * the place to render an answer that a future completed on some other thread. Once a stopping
   * server has closed its connections and stopped its loops, a task runs on the caller's thread
   * instead, and finds its client gone.
   */
  public java.util.concurrent.Executor executor() {
    return exchange.executor();
  }

  public int status() {
    return status;
  }

  public Response header(String name, String value) {
    headers.set(name, value);
    return this;
  }

  public synchronized boolean isSent() {
    return sent;
  }

  /**
   * The handler returns before answering: the answer is sent later, from another thread. Without
   * this, a handler that returns unanswered gets a 500 written for it.
   */
  public synchronized void later() {
    later = true;
  }

  public synchronized boolean isLater() {
    return later;
  }

  /** Runs {@code action} once the answer is sent (or started, for a stream); now if it was. */
  public void onAnswered(Runnable action) {
    synchronized (this) {
      if (!sent) {
        onAnswered = action;
        return;
      }
    }
    action.run();
  }

  /** Answers with this body. A client already gone is a {@link ClientGone}. */
  public void send(byte[] body) {
    send(body, null);
  }

  /** Answers with no body. */
  public void send() {
    send(new byte[0], null);
  }

  /**
   * Answers with this body; {@code ifUndelivered} runs (once, on a thread of its own, or on this
   * one before a {@link ClientGone}) when it could not be written to the client.
   */
  public void send(byte[] body, Runnable ifUndelivered) {
    Runnable then = claim();
    try {
      exchange.sendFull(status, headers, body, ifUndelivered);
    } finally {
      if (then != null) {
        then.run();
      }
    }
  }

  /** Starts a {@code text/event-stream} answer; the stream ends the exchange when closed. */
  public EventStream eventStream() {
    Runnable then = claim();
    headers.set("content-type", "text/event-stream");
    headers.set("cache-control", "no-cache");
    try {
      exchange.startStream(status, headers);
    } finally {
      if (then != null) {
        then.run();
      }
    }
    return new EventStream(exchange);
  }

  /** Marks the answer sent; returns what was waiting for that. */
  private synchronized Runnable claim() {
    if (sent) {
      throw new IllegalStateException("this request was already answered");
    }
    sent = true;
    Runnable then = onAnswered;
    onAnswered = null;
    return then;
  }
}
