package dev.wharf.http.nativeapi;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.wharf.core.Publish;
import dev.wharf.http.ApiError;
import dev.wharf.http.Fields;
import dev.wharf.http.Json;
import dev.wharf.store.ContentType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A publish body (one message, or {@code {"messages": [...]}}) into core {@link Publish}es, in one
 * pass over the bytes. Every field but {@code body} is read as a small tree and checked by {@link
 * Fields}; a {@code body} that is not a string is validated as the parser skips it and kept as the
 * bytes sent, so a message's payload is never built into a tree and written out again.
 */
final class PublishParser {
  private static final Set<String> ONE =
      Set.of(
          "body", "content_type", "headers", "metadata", "delay", "ttl", "idempotency_key", "key");

  /** Reads one value inside the body; the trailing-token check belongs to the body as a whole. */
  private static final ObjectReader VALUE =
      Json.MAPPER.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** The messages of one request; {@code batch} when it used the {@code messages} form. */
  record Parsed(boolean batch, List<Publish> messages) {}

  private PublishParser() {}

  static Parsed parse(byte[] bytes) {
    try (JsonParser p = Json.MAPPER.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw ApiError.invalidBody("the body must be a JSON object");
      }
      Message single = new Message(bytes, "");
      List<Publish> batch = null;
      String other = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        if (name.equals("messages")) {
          batch = messages(p, bytes);
        } else {
          other = other == null ? name : other;
          single.field(p, name);
        }
      }
      if (p.nextToken() != null) {
        throw ApiError.invalidBody("malformed JSON: more than one value in the body");
      }
      if (batch == null) {
        return new Parsed(false, List.of(single.toPublish()));
      }
      if (other != null) {
        throw ApiError.invalidBody("unknown field \"" + other + "\"");
      }
      return new Parsed(true, batch);
    } catch (JacksonException e) {
      throw ApiError.invalidBody(Json.malformed(e));
    } catch (IOException e) {
      throw ApiError.invalidBody("the body could not be read");
    }
  }

  private static List<Publish> messages(JsonParser p, byte[] bytes) throws IOException {
    if (p.currentToken() != JsonToken.START_ARRAY) {
      throw ApiError.invalidBody("messages must be an array of messages");
    }
    List<Publish> out = new ArrayList<>();
    for (int i = 0; p.nextToken() != JsonToken.END_ARRAY; i++) {
      String path = "messages[" + i + "].";
      if (p.currentToken() != JsonToken.START_OBJECT) {
        throw ApiError.invalidBody("messages[" + i + "] must be an object");
      }
      Message m = new Message(bytes, path);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        m.field(p, name);
      }
      out.add(m.toPublish());
    }
    return out;
  }

  /** One message's fields as they are read: the body on its own, everything else as trees. */
  private static final class Message {
    private final byte[] source;
    private final String path;
    private final ObjectNode fields = Json.MAPPER.createObjectNode();
    /** A body that is not a string, as sent (a number keeps its digits: 7.50 stays 7.50). */
    private byte[] rawBody;
    /**
     * A string body as sent, quotes and escapes included: what a JSON message stores, where text
     * and bytes take the decoded string. Which one applies is known only once content_type is read,
     * and it may come after the body.
     */
    private byte[] rawStringBody;
    /** The metadata object as sent. */
    private String rawMetadata;

    Message(byte[] source, String path) {
      this.source = source;
      this.path = path;
    }

    /** Reads the value the parser is on, the value of field {@code name}. */
    void field(JsonParser p, String name) throws IOException {
      JsonToken t = p.currentToken();
      if (name.equals("metadata") && t == JsonToken.START_OBJECT) {
        // Kept as sent, as a JSON body is: a tree written out again would turn 7.50 into 7.5.
        int start = (int) p.currentTokenLocation().getByteOffset();
        fields.set(name, VALUE.readTree(p));
        int end = (int) p.currentLocation().getByteOffset();
        rawMetadata = new String(source, start, end - start, StandardCharsets.UTF_8);
      } else if (!name.equals("body")) {
        fields.set(name, VALUE.readTree(p));
      } else if (t == JsonToken.VALUE_STRING) {
        int start = (int) p.currentTokenLocation().getByteOffset();
        fields.set(name, VALUE.readTree(p));
        int end = (int) p.currentLocation().getByteOffset();
        rawStringBody = Arrays.copyOfRange(source, start, end);
      } else if (t.isStructStart()) {
        int start = (int) p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        int end = (int) p.currentLocation().getByteOffset();
        rawBody = Arrays.copyOfRange(source, start, end);
        fields.putNull(name);
      } else {
        rawBody = p.getText().getBytes(StandardCharsets.UTF_8);
        fields.putNull(name);
      }
    }

    Publish toPublish() {
      Fields f = Fields.of(fields, path, ONE);
      String typeName = f.string("content_type");
      ContentType type;
      try {
        type = typeName == null ? ContentType.JSON : ContentType.ofWire(typeName);
      } catch (IllegalArgumentException e) {
        throw ApiError.invalidBody(
            f.name("content_type") + " must be json, text or bytes, got \"" + typeName + "\"");
      }
      if (!f.has("body")) {
        throw ApiError.invalidBody(f.name("body") + " is required");
      }
      ObjectNode metadata = f.object("metadata");
      Map<String, String> headers = f.stringMap("headers");
      if (headers != null) {
        checkHeaders(f.name("headers"), headers);
      }
      return new Publish(
          type,
          payload(f, type),
          headers == null ? Map.of() : headers,
          metadata == null ? null : rawMetadata,
          f.duration("delay"),
          // Absent takes the queue's ttl; null, like "0s", is none.
          f.isNull("ttl") ? Duration.ZERO : f.duration("ttl"),
          f.string("idempotency_key"),
          f.string("key"));
    }

    /**
     * Consumers hand headers on to protocols and logs that cannot carry an empty name or a control
     * character, so such a header is refused here rather than stored.
     */
    private static void checkHeaders(String field, Map<String, String> headers) {
      for (Map.Entry<String, String> h : headers.entrySet()) {
        String name = h.getKey();
        if (name.isEmpty()) {
          throw ApiError.invalidBody(field + ": a header name must not be empty");
        }
        if (hasControl(name)) {
          throw ApiError.invalidBody(
              field + "." + shown(name) + ": a header name must not hold control characters");
        }
        if (hasControl(h.getValue())) {
          throw ApiError.invalidBody(
              field + "." + shown(name) + ": a header value must not hold control characters");
        }
      }
    }

    private static boolean hasControl(String s) {
      for (int i = 0; i < s.length(); i++) {
        if (Character.isISOControl(s.charAt(i))) {
          return true;
        }
      }
      return false;
    }

    /** A header name as it would be written in JSON, quoted when it is not a plain word. */
    private static String shown(String name) {
      StringBuilder b = new StringBuilder();
      boolean plain = true;
      for (int i = 0; i < name.length(); i++) {
        char c = name.charAt(i);
        if (Character.isISOControl(c)) {
          b.append(String.format("\\u%04x", (int) c));
          plain = false;
        } else {
          b.append(c);
          plain &= Character.isLetterOrDigit(c) || c == '-' || c == '_';
        }
      }
      return plain ? b.toString() : "\"" + b + "\"";
    }

    private byte[] payload(Fields f, ContentType type) {
      JsonNode body = f.node("body");
      switch (type) {
        case JSON -> {
          if (rawBody != null) {
            return rawBody;
          }
          if (rawStringBody != null) {
            return rawStringBody;
          }
          try {
            return Json.MAPPER.writeValueAsBytes(body);
          } catch (JsonProcessingException e) {
            throw ApiError.invalidBody(f.name("body") + " could not be stored as JSON");
          }
        }
        case TEXT -> {
          if (rawBody != null || !body.isTextual()) {
            throw ApiError.invalidBody(f.name("body") + " must be a string for content_type text");
          }
          return Fields.text(f.name("body"), body.textValue()).getBytes(StandardCharsets.UTF_8);
        }
        default -> {
          if (rawBody != null || !body.isTextual()) {
            throw ApiError.invalidBody(f.name("body") + " must be base64 for content_type bytes");
          }
          try {
            return Base64.getDecoder().decode(body.textValue());
          } catch (IllegalArgumentException e) {
            throw ApiError.invalidBody(f.name("body") + " is not valid base64");
          }
        }
      }
    }
  }
}
