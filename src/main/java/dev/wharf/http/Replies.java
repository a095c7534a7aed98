package dev.wharf.http;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.wharf.http.server.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Writing JSON answers as bytes with the streaming generator (no reflection per request). */
public final class Replies {
  /** Writes one JSON document. */
  @FunctionalInterface
  public interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private Replies() {}

  public static byte[] bytes(Body body) {
    return bytes(256, body);
  }

  /** @param expectedSize the answer's likely length in bytes, the buffer's first size */
  public static byte[] bytes(int expectedSize, Body body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(expectedSize);
    try (JsonGenerator g = Json.FACTORY.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  public static void send(Response res, int status, Body body) {
    send(res, status, bytes(body));
  }

  public static void send(Response res, int status, byte[] json) {
    send(res, status, json, null);
  }

  /** Sends; {@code ifUndelivered} runs when the answer could not be written to the client. */
  public static void send(Response res, int status, byte[] json, Runnable ifUndelivered) {
    res.status(status).header("Content-Type", "application/json").send(json, ifUndelivered);
  }

  public static void noContent(Response res) {
    res.status(204).send();
  }

  public static void error(Response res, ApiError e) {
    if (e.retryAfter() != null) {
      res.header("Retry-After", e.retryAfter());
    }
    if (e.status() == 401) {
      // RFC 9110 asks every 401 to name the scheme that would be accepted.
      res.header("WWW-Authenticate", "Bearer");
    }
    send(res, e.status(), errorBody(e.code(), e.detail()));
  }

  /** The JSON every error answer carries. */
  public static byte[] errorBody(String code, String detail) {
    return bytes(
        g -> {
          g.writeStartObject();
          g.writeStringField("code", code);
          g.writeStringField("detail", wholeText(detail));
          g.writeEndObject();
        });
  }

  /**
   * A detail that quotes the request (an unknown field's name) may quote half a surrogate pair the
   * client spelt as an escape. Written as it is, the answer would hold the same escape, which
   * strict JSON readers refuse as no text: the client would get a parse error instead of the
   * reason. Each such half is shown as the six characters of its escape instead.
   */
  static String wholeText(String detail) {
    if (detail == null || Utf8.loneSurrogate(detail) < 0) {
      return detail;
    }
    StringBuilder out = new StringBuilder(detail.length() + 8);
    for (int i = 0; i < detail.length(); i++) {
      char c = detail.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < detail.length()
              && Character.isLowSurrogate(detail.charAt(i + 1));
      if (pair) {
        out.append(c).append(detail.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * RFC 3339 in UTC, always with three fraction digits: Instant's own form leaves them out on a
   * whole second, and times that a client compares as text would then sort wrongly.
   */
  static String millis(Instant t) {
    String s = t.truncatedTo(ChronoUnit.MILLIS).toString();
    // "2026-01-01T00:00:00Z" has no fraction; years past 9999 or before 0 are longer, and rare.
    return s.length() == 20 ? s.substring(0, 19) + ".000Z" : s;
  }

  public static void time(JsonGenerator g, String field, Instant t) throws IOException {
    if (t == null) {
      g.writeNullField(field);
    } else {
      g.writeStringField(field, millis(t));
    }
  }
}
