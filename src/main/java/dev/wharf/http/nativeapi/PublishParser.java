package dev.wharf.http.nativeapi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.wharf.core.Publish;
import dev.wharf.http.ApiError;
import dev.wharf.http.Fields;
import dev.wharf.http.Json;
import dev.wharf.store.ContentType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A publish body (one message, or {@code {"messages": [...]}}) into core {@link Publish}es. */
final class PublishParser {
  private static final Set<String> BATCH = Set.of("messages");
  private static final Set<String> ONE =
      Set.of(
          "body", "content_type", "headers", "metadata", "delay", "ttl", "idempotency_key", "key");

  private PublishParser() {}

  static boolean isBatch(ObjectNode root) {
    return root.has("messages");
  }

  static List<Publish> parse(ObjectNode root) {
    if (!isBatch(root)) {
      return List.of(one(Fields.of(root, ONE)));
    }
    JsonNode list = Fields.of(root, BATCH).node("messages");
    if (!list.isArray()) {
      throw ApiError.invalidBody("messages must be an array of messages");
    }
    List<Publish> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      JsonNode m = list.get(i);
      if (!(m instanceof ObjectNode obj)) {
        throw ApiError.invalidBody("messages[" + i + "] must be an object");
      }
      out.add(one(Fields.of(obj, "messages[" + i + "].", ONE)));
    }
    return out;
  }

  private static Publish one(Fields f) {
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
    return new Publish(
        type,
        payload(f, type),
        headers == null ? Map.of() : headers,
        metadata == null ? null : metadata.toString(),
        f.duration("delay"),
        f.duration("ttl"),
        f.string("idempotency_key"),
        f.string("key"));
  }

  private static byte[] payload(Fields f, ContentType type) {
    JsonNode body = f.node("body");
    switch (type) {
      case JSON -> {
        try {
          return Json.MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
          throw ApiError.invalidBody(f.name("body") + " could not be stored as JSON");
        }
      }
      case TEXT -> {
        if (!body.isTextual()) {
          throw ApiError.invalidBody(f.name("body") + " must be a string for content_type text");
        }
        return body.textValue().getBytes(StandardCharsets.UTF_8);
      }
      default -> {
        if (!body.isTextual()) {
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
