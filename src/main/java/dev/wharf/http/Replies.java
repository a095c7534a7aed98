package dev.wharf.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Header;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Writing JSON answers as bytes with the streaming generator (no reflection per request). */
public final class Replies {
  public static final Header JSON_TYPE =
      HeaderValues.createCached(HeaderNames.CONTENT_TYPE, "application/json");

  /** Writes one JSON document. */
  @FunctionalInterface
  public interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private Replies() {}

  public static byte[] bytes(Body body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = Json.FACTORY.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  public static void send(ServerResponse res, int status, Body body) {
    send(res, status, bytes(body));
  }

  public static void send(ServerResponse res, int status, byte[] json) {
    res.status(Status.create(status));
    res.header(JSON_TYPE);
    res.send(json);
  }

  public static void noContent(ServerResponse res) {
    res.status(Status.NO_CONTENT_204);
    res.send();
  }

  public static void error(ServerResponse res, ApiError e) {
    if (e.retryAfter() != null) {
      res.header(HeaderNames.RETRY_AFTER, e.retryAfter());
    }
    send(res, e.status(), g -> {
      g.writeStartObject();
      g.writeStringField("code", e.code());
      g.writeStringField("detail", e.detail());
      g.writeEndObject();
    });
  }

  /** RFC 3339 UTC, milliseconds at most; null stays null. */
  public static void time(JsonGenerator g, String field, Instant t) throws IOException {
    if (t == null) {
      g.writeNullField(field);
    } else {
      g.writeStringField(field, t.truncatedTo(ChronoUnit.MILLIS).toString());
    }
  }
}
