package dev.wharf.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.wharf.http.server.Request;
import java.io.IOException;
import java.util.Locale;
import java.util.Set;

/**
 * Reads request bodies: size limit, media type, strict JSON into an object. The server has read
 * the body already, up to the same limit.
 */
public final class RequestBodies {
  private final long maxBytes;

  public RequestBodies(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** The body as a JSON object; an empty body is an empty object. */
  public ObjectNode object(Request req) {
    return object(req, false);
  }

  /** The body as a JSON object; an empty body is a 400 when {@code required}. */
  public ObjectNode object(Request req, boolean required) {
    byte[] bytes = read(req);
    if (bytes.length == 0 || isBlank(bytes)) {
      if (required) {
        throw ApiError.invalidBody("a JSON body is required");
      }
      return Json.MAPPER.createObjectNode();
    }
    checkUtf8(bytes);
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(bytes);
    } catch (JacksonException e) {
      throw ApiError.invalidBody(Json.malformed(e));
    } catch (IOException e) {
      throw ApiError.invalidBody("the body could not be read");
    }
    if (!(node instanceof ObjectNode obj)) {
      throw ApiError.invalidBody("the body must be a JSON object");
    }
    return obj;
  }

  /**
   * Checks the body of a route that takes no fields: empty or {@code {}}. Such routes delete
   * things, so a body they cannot read must stop them rather than be ignored.
   */
  public void none(Request req) {
    Fields.of(object(req), Set.of());
  }

  /** The raw body, for a handler that parses it itself; an empty or blank one is a 400. */
  public byte[] required(Request req) {
    byte[] bytes = read(req);
    if (bytes.length == 0 || isBlank(bytes)) {
      throw ApiError.invalidBody("a JSON body is required");
    }
    checkUtf8(bytes);
    return bytes;
  }

  /** JSON is UTF-8; a body that is not is refused whole, not read leniently. */
  private static void checkUtf8(byte[] bytes) {
    int at = Utf8.firstInvalid(bytes);
    if (at >= 0) {
      throw ApiError.invalidBody("the body is not valid UTF-8 at byte " + at);
    }
  }

  /** The raw body, at most the configured number of bytes. */
  public byte[] read(Request req) {
    checkMediaType(req);
    byte[] bytes = req.body();
    if (req.bodyTooLarge() || bytes.length > maxBytes) {
      throw tooLarge();
    }
    return bytes;
  }

  private ApiError tooLarge() {
    return new ApiError(
        413, "body_too_large", "the body is over the limit of " + maxBytes + " bytes");
  }

  private static void checkMediaType(Request req) {
    String encoding = req.header("Content-Encoding");
    if (encoding != null && !encoding.isBlank() && !encoding.trim().equalsIgnoreCase("identity")) {
      // Read as it is, a compressed body only fails later as malformed JSON, which misleads.
      throw new ApiError(
          415,
          "unsupported_media_type",
          "Content-Encoding " + encoding.trim() + " is not accepted: send the body uncompressed");
    }
    String header = req.header("Content-Type");
    if (header == null) {
      return;
    }
    String[] parts = header.split(";");
    for (int i = 1; i < parts.length; i++) {
      String[] param = parts[i].split("=", 2);
      if (param.length == 2 && param[0].trim().equalsIgnoreCase("charset")) {
        String charset = param[1].trim().replace("\"", "");
        if (!charset.equalsIgnoreCase("utf-8") && !charset.equalsIgnoreCase("utf8")) {
          throw new ApiError(
              415, "unsupported_media_type", "JSON is read as UTF-8, not " + charset);
        }
      }
    }
    String essence = parts[0].trim();
    int slash = essence.indexOf('/');
    if (slash <= 0 || slash == essence.length() - 1 || essence.indexOf('/', slash + 1) >= 0) {
      throw new ApiError(
          415, "unsupported_media_type", "the Content-Type header is not a media type");
    }
    String t = essence.substring(0, slash).trim();
    String sub = essence.substring(slash + 1).trim().toLowerCase(Locale.ROOT);
    // curl -d labels every body as a form; the body is still parsed strictly as JSON, so a real
    // form is a 400, while `curl -d '{...}'` works as people expect.
    boolean json =
        t.equalsIgnoreCase("application")
            && (sub.equals("json") || sub.endsWith("+json") || sub.equals("x-www-form-urlencoded"));
    if (!json) {
      throw new ApiError(
          415,
          "unsupported_media_type",
          "the body must be application/json, got " + essence);
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
