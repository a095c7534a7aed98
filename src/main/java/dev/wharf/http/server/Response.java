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
  private int status = 200;
  private boolean sent;

  Response(Exchange exchange) {
    this.exchange = exchange;
  }

  public Response status(int code) {
    this.status = code;
    return this;
  }

  public int status() {
    return status;
  }

  public Response header(String name, String value) {
    headers.set(name, value);
    return this;
  }

  public boolean isSent() {
    return sent;
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
    claim();
    exchange.sendFull(status, headers, body, ifUndelivered);
  }

  /** Starts a {@code text/event-stream} answer; the stream ends the exchange when closed. */
  public EventStream eventStream() {
    claim();
    headers.set("content-type", "text/event-stream");
    headers.set("cache-control", "no-cache");
    exchange.startStream(status, headers);
    return new EventStream(exchange);
  }

  private void claim() {
    if (sent) {
      throw new IllegalStateException("this request was already answered");
    }
    sent = true;
  }
}
