package dev.wharf.http.server;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** One HTTP request, its body already read (up to the server's limit). */
public final class Request {
  private static final byte[] NO_BODY = new byte[0];

  private final String method;
  private final String uri;
  private final HttpHeaders headers;
  private final byte[] body;
  private final boolean bodyTooLarge;
  private final InetSocketAddress remote;
  private final Exchange exchange;
  private Map<String, String> params = Map.of();
  private Map<String, List<String>> query;

  Request(
      String method,
      String uri,
      HttpHeaders headers,
      byte[] body,
      boolean bodyTooLarge,
      InetSocketAddress remote,
      Exchange exchange) {
    this.method = method;
    this.uri = uri;
    this.headers = headers;
    this.body = body == null ? NO_BODY : body;
    this.bodyTooLarge = bodyTooLarge;
    this.remote = remote;
    this.exchange = exchange;
  }

  public String method() {
    return method;
  }

  /** The path as sent, still percent-encoded, without the query. */
  public String path() {
    int q = uri.indexOf('?');
    return q < 0 ? uri : uri.substring(0, q);
  }

  /**
   * A path parameter of the matched route template, percent-decoded; a malformed escape is a
   * {@link BadRequest}.
   */
  public String param(String name) {
    String raw = params.get(name);
    if (raw == null || raw.indexOf('%') < 0) {
      return raw;
    }
    try {
      // Unlike in a query, a '+' in a path is a plus.
      return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequest("the path has a malformed escape: " + raw);
    }
  }

  /** The matched route's parameters, still encoded. */
  void params(Map<String, String> matched) {
    this.params = matched;
  }

  /** Whether the request target has a query part, so a request without one is not decoded. */
  public boolean hasQuery() {
    return uri.indexOf('?') >= 0;
  }

  /** The query parameters, decoded; a malformed escape is a {@link BadRequest}. */
  public Map<String, List<String>> query() {
    if (query == null) {
      try {
        query = new QueryStringDecoder(uri).parameters();
      } catch (IllegalArgumentException e) {
        // The decoder's own message names its internals and repeats the whole target.
        throw new BadRequest("invalid_param", "the query string has a malformed %-escape");
      }
    }
    return query;
  }

  /** The first value of a header, or null. */
  public String header(String name) {
    return headers.get(name);
  }

  /** The declared Content-Length, or -1 when there is none. */
  public long contentLength() {
    String v = headers.get(HttpHeaderNames.CONTENT_LENGTH);
    if (v == null) {
      return -1;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new BadRequest("Content-Length is not a number");
    }
  }

  /** The body, empty when there was none. Not filled when {@link #bodyTooLarge()}. */
  public byte[] body() {
    return body;
  }

  /** Whether the body was over the server's limit, and so was not kept. */
  public boolean bodyTooLarge() {
    return bodyTooLarge;
  }

  public InetSocketAddress remoteAddress() {
    return remote;
  }

  /** Whether the client is still connected. */
  public boolean connected() {
    return exchange.connected();
  }

  /**
   * Runs {@code action} once if the client disconnects before the answer is complete, at once if it
   * already has. It runs on a thread of its own and may block.
   */
  public void onDisconnect(Runnable action) {
    exchange.onDisconnect(action);
  }
}
