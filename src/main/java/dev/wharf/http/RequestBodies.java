package dev.wharf.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.http.HttpMediaType;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/** Reads request bodies: size limit, media type, strict JSON into an object. */
public final class RequestBodies {
  private final long maxBytes;

  public RequestBodies(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** The body as a JSON object; an empty body is an empty object. */
  public ObjectNode object(ServerRequest req) {
    return object(req, false);
  }

  /** The body as a JSON object; an empty body is a 400 when {@code required}. */
  public ObjectNode object(ServerRequest req, boolean required) {
    byte[] bytes = read(req);
    if (bytes.length == 0 || isBlank(bytes)) {
      if (required) {
        throw ApiError.invalidBody("a JSON body is required");
      }
      return Json.MAPPER.createObjectNode();
    }
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(bytes);
    } catch (JacksonException e) {
      throw ApiError.invalidBody("malformed JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw ApiError.invalidBody("the body could not be read");
    }
    if (!(node instanceof ObjectNode obj)) {
      throw ApiError.invalidBody("the body must be a JSON object");
    }
    return obj;
  }

  /** The raw body, for a handler that parses it itself; an empty or blank one is a 400. */
  public byte[] required(ServerRequest req) {
    byte[] bytes = read(req);
    if (bytes.length == 0 || isBlank(bytes)) {
      throw ApiError.invalidBody("a JSON body is required");
    }
    return bytes;
  }

  /** The raw body, at most the configured number of bytes. */
  public byte[] read(ServerRequest req) {
    checkMediaType(req);
    OptionalLong declared = req.headers().contentLength();
    if (declared.isPresent() && declared.getAsLong() > maxBytes) {
      throw tooLarge();
    }
    if (!req.content().hasEntity()) {
      return new byte[0];
    }
    byte[] bytes;
    try (InputStream in = req.content().inputStream()) {
      if (declared.isPresent()) {
        // Straight into one exact buffer: readNBytes(int) would gather chunks and copy them
        // again, and a batch publish body is most of what a server allocates.
        bytes = new byte[(int) declared.getAsLong()];
        if (in.readNBytes(bytes, 0, bytes.length) < bytes.length) {
          throw ApiError.invalidBody("the body ended before its Content-Length");
        }
      } else {
        // A chunked body declares no length, so reading stops one byte past the limit.
        bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof ApiError a) {
        throw a;
      }
      // Broken framing (a bad chunk size) or a client that left half way.
      throw ApiError.invalidBody("the body could not be read");
    }
    if (bytes.length > maxBytes) {
      throw tooLarge();
    }
    return bytes;
  }

  private ApiError tooLarge() {
    return new ApiError(
        413, "body_too_large", "the body is over the limit of " + maxBytes + " bytes");
  }

  private static void checkMediaType(ServerRequest req) {
    Optional<HttpMediaType> type;
    try {
      type = req.headers().contentType();
    } catch (RuntimeException e) {
      throw new ApiError(
          415, "unsupported_media_type", "the Content-Type header is not a media type");
    }
    if (type.isEmpty()) {
      return;
    }
    String t = type.get().mediaType().type();
    String sub = type.get().mediaType().subtype().toLowerCase(Locale.ROOT);
    // curl -d labels every body as a form; the body is still parsed strictly as JSON, so a real
    // form is a 400, while `curl -d '{...}'` works as people expect.
    boolean json =
        t.equalsIgnoreCase("application")
            && (sub.equals("json") || sub.endsWith("+json") || sub.equals("x-www-form-urlencoded"));
    if (!json) {
      throw new ApiError(
          415,
          "unsupported_media_type",
          "the body must be application/json, got " + type.get().text());
    }
  }

  private static boolean isBlank(byte[] bytes) {
    for (byte b : bytes) {
      if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
        return false;
      }
    }
    return true;
  }
}
