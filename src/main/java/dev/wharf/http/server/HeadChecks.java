package dev.wharf.http.server;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Iterator;
import java.util.List;

/**
 * What a request head must be for this server to take it, past what the codec already checks:
 * its version, its Host, its target's form, its expectation, its transfer codings and its length.
 * Every request is asked, on the event loop: the common path makes no list and no object.
 */
final class HeadChecks {
  /** What {@link #declaredBody} returns for a head it refused. */
  static final long REFUSED = Long.MIN_VALUE;

  private HeadChecks() {}

  /**
   * Checks a decoded head, rewriting its target as the routes read it (see {@link #originForm}).
   *
   * @return the body length it declares, -1 for none, or {@link #REFUSED} once {@code
   *     connection} has refused it
   */
  static long declaredBody(HttpRequest req, Connection connection) {
    HttpVersion version = req.protocolVersion();
    if (version.majorVersion() != 1 || version.minorVersion() > 1) {
      // The answer would carry the request's version, one whose rules this server does not keep.
      connection.reject(505, "http_version_not_supported", "only HTTP/1.0 and HTTP/1.1 are served");
      return REFUSED;
    }
    int hosts = hostHeaders(req.headers());
    if (hosts > 1 || (hosts == 0 && version.minorVersion() > 0)) {
      // RFC 9112 3.2: which host is meant would be a guess, and proxies may guess otherwise.
      connection.reject(
          400,
          "invalid_request",
          hosts == 0
              ? "an HTTP/1.1 request needs a Host header"
              : "a request may have only one Host header");
      return REFUSED;
    }
    String target = originForm(req.method().name(), req.uri());
    if (target == null) {
      connection.reject(
          400,
          "invalid_request",
          "the request target must be a path starting with / or an absolute http(s) URI");
      return REFUSED;
    }
    req.setUri(target);
    String expect = req.headers().get(HttpHeaderNames.EXPECT);
    if (expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect)) {
      connection.reject(
          417, "expectation_failed", "the only expectation understood is 100-continue");
      return REFUSED;
    }
    String coding =
        req.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)
            ? unknownCoding(req.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING))
            : null;
    if (coding != null) {
      // The codec only removes the chunked coding: the body under it would be taken as sent.
      connection.reject(
          501,
          "not_implemented",
          "Transfer-Encoding " + coding + " is not supported; the only transfer coding is chunked");
      return REFUSED;
    }
    try {
      return HttpUtil.getContentLength(req, -1L);
    } catch (NumberFormatException e) {
      connection.reject(400, "invalid_request", "Content-Length is not a number");
      return REFUSED;
    }
  }

  /** How many Host headers there are, counted to 2: every request is asked, so no list is made. */
  private static int hostHeaders(HttpHeaders headers) {
    Iterator<? extends CharSequence> values =
        headers.valueCharSequenceIterator(HttpHeaderNames.HOST);
    int n = 0;
    while (n < 2 && values.hasNext()) {
      values.next();
      n++;
    }
    return n;
  }

  /**
   * The request target as the routes read it, a path and query (RFC 9112 3.2): an origin-form
   * target as sent, an absolute-form one's path and query (its authority is ignored, as the Host
   * header is), and {@code *} for OPTIONS; null for anything else.
   */
  private static String originForm(String method, String target) {
    if (target.startsWith("/")) {
      return target;
    }
    if (target.equals("*")) {
      return method.equals("OPTIONS") ? target : null;
    }
    int authority = schemeEnd(target);
    if (authority < 0) {
      return null;
    }
    int end = authority;
    while (end < target.length() && "/?#".indexOf(target.charAt(end)) < 0) {
      end++;
    }
    if (end == authority) {
      // An http URI with no host is invalid (RFC 9110 4.2.1).
      return null;
    }
    String rest = target.substring(end);
    return rest.startsWith("/") ? rest : "/" + rest;
  }

  /** Where the authority starts in an http or https URI, or -1 when it is not one. */
  private static int schemeEnd(String target) {
    for (String scheme : new String[] {"http://", "https://"}) {
      if (target.regionMatches(true, 0, scheme, 0, scheme.length())) {
        return scheme.length();
      }
    }
    return -1;
  }

  /**
   * The first transfer coding other than chunked that the Transfer-Encoding lines name, or null.
   * (The codec has already refused a list that does not end with chunked, as RFC 9112 6.3 asks.)
   */
  private static String unknownCoding(List<String> lines) {
    for (String line : lines) {
      for (String coding : line.split(",")) {
        String name = coding.trim();
        if (!name.isEmpty() && !name.equalsIgnoreCase("chunked")) {
          int params = name.indexOf(';');
          return params < 0 ? name : name.substring(0, params).trim();
        }
      }
    }
    return null;
  }
}
