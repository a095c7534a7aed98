package dev.wharf.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One HTTP/1.1 request exactly as it goes on the wire: the target is sent as written (no
 * normalising of dots or escapes) and the body as bytes. {@code contentType} null sends none.
 */
record WireRequest(
    String method, String target, String contentType, List<String> extraHeaders, byte[] body) {

  WireRequest {
    extraHeaders = List.copyOf(extraHeaders);
  }

  static WireRequest of(String method, String target, byte[] body) {
    return new WireRequest(method, target, body == null ? null : "application/json", List.of(),
        body);
  }

  WireRequest withTarget(String t) {
    return new WireRequest(method, t, contentType, extraHeaders, body);
  }

  WireRequest withBody(byte[] b) {
    return new WireRequest(method, target, contentType, extraHeaders, b);
  }

  WireRequest withContentType(String type) {
    return new WireRequest(method, target, type, extraHeaders, body);
  }

  WireRequest withHeader(String line) {
    List<String> more = new ArrayList<>(extraHeaders);
    more.add(line);
    return new WireRequest(method, target, contentType, more, body);
  }

  byte[] toBytes() {
    StringBuilder head = new StringBuilder();
    head.append(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: t\r\n");
    if (contentType != null) {
      head.append("Content-Type: ").append(contentType).append("\r\n");
    }
    for (String h : extraHeaders) {
      head.append(h).append("\r\n");
    }
    if (body != null) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] out = new byte[h.length + (body == null ? 0 : body.length)];
    System.arraycopy(h, 0, out, 0, h.length);
    if (body != null) {
      System.arraycopy(body, 0, out, h.length, body.length);
    }
    return out;
  }

  /** The request for a failure message: bytes beyond printable ASCII shown as {@code <xx>}. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(method).append(' ').append(target);
    if (contentType != null) {
      s.append(" [Content-Type: ").append(contentType).append(']');
    }
    extraHeaders.forEach(h -> s.append(" [").append(h).append(']'));
    if (body != null) {
      s.append(" body(").append(body.length).append("): ");
      int shown = Math.min(body.length, 400);
      for (int i = 0; i < shown; i++) {
        int b = body[i] & 0xff;
        if (b >= 0x20 && b < 0x7f) {
          s.append((char) b);
        } else {
          s.append(String.format("<%02x>", b));
        }
      }
      if (shown < body.length) {
        s.append("...");
      }
    }
    return s.toString();
  }
}
