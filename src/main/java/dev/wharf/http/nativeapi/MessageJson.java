package dev.wharf.http.nativeapi;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.wharf.http.Json;
import dev.wharf.http.RawJson;
import dev.wharf.http.Replies;
import dev.wharf.store.ContentType;
import dev.wharf.store.Delivery;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Messages as the native API shows them. */
final class MessageJson {
  private MessageJson() {}

  /** {@code {"messages": [...]}} of deliveries, as receive answers. */
  static byte[] deliveries(List<Delivery> got) {
    return Replies.bytes(
        expectedSize(got),
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("messages");
          for (Delivery d : got) {
            delivery(g, d);
          }
          g.writeEndArray();
          g.writeEndObject();
        });
  }

  /** Payloads plus each message's fields, so a large answer is not grown by doubling. */
  private static int expectedSize(List<Delivery> got) {
    long size = 32;
    for (Delivery d : got) {
      byte[] p = d.message().payload();
      // Text may grow by escaping, bytes by base64; JSON is copied as it is.
      long factor = d.message().contentType() == ContentType.JSON ? 1 : 2;
      size += 320 + (p == null ? 0 : p.length * factor);
    }
    return (int) Math.min(size, 1 << 24);
  }

  static byte[] delivery(Delivery d) {
    return Replies.bytes(g -> delivery(g, d));
  }

  static void delivery(JsonGenerator g, Delivery d) throws IOException {
    Message m = d.message();
    g.writeStartObject();
    g.writeStringField("id", m.id());
    g.writeStringField("lease_id", d.leaseId());
    Replies.time(g, "lease_until", d.leaseUntil());
    g.writeNumberField("attempt", m.attempt());
    payload(g, m);
    g.writeStringField("key", m.key());
    Replies.time(g, "published_at", m.publishedAt());
    g.writeStringField("original_queue", m.originalQueue());
    g.writeStringField("dead_reason", m.deadReason());
    g.writeEndObject();
  }

  /** {@code {"messages": [...], "next": cursor}} of stored messages, as browse answers. */
  static byte[] page(List<Message> messages, int limit, Instant now) {
    return Replies.bytes(
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("messages");
          for (Message m : messages) {
            stored(g, m, now);
          }
          g.writeEndArray();
          if (messages.size() == limit && !messages.isEmpty()) {
            g.writeStringField("next", Long.toString(messages.get(messages.size() - 1).seq()));
          } else {
            g.writeNullField("next");
          }
          g.writeEndObject();
        });
  }

  static void stored(JsonGenerator g, Message m, Instant now) throws IOException {
    g.writeStartObject();
    g.writeStringField("id", m.id());
    g.writeNumberField("seq", m.seq());
    g.writeStringField("state", state(m, now));
    g.writeNumberField("attempt", m.attempt());
    payload(g, m);
    g.writeStringField("key", m.key());
    Replies.time(g, "published_at", m.publishedAt());
    Replies.time(g, "visible_at", m.visibleAt());
    Replies.time(g, "lease_until", m.state() == MessageState.LEASED ? m.leaseUntil() : null);
    Replies.time(g, "expires_at", m.expiresAt());
    g.writeStringField("original_queue", m.originalQueue());
    g.writeStringField("dead_reason", m.deadReason());
    Replies.time(g, "died_at", m.diedAt());
    g.writeEndObject();
  }

  /** The browse filter's words: a ready message not yet visible shows as "delayed". */
  private static String state(Message m, Instant now) {
    return switch (m.state()) {
      case READY -> m.visibleAt() != null && m.visibleAt().isAfter(now) ? "delayed" : "ready";
      case LEASED -> "leased";
      case EXPIRED -> "expired";
    };
  }

  /** content_type, body, headers, metadata. JSON payloads are embedded as they are stored. */
  private static void payload(JsonGenerator g, Message m) throws IOException {
    byte[] p = m.payload() == null ? new byte[0] : m.payload();
    switch (m.contentType()) {
      case JSON -> {
        if (Json.isValid(p)) {
          g.writeStringField("content_type", "json");
          g.writeFieldName("body");
          g.writeRawValue(new RawJson(p));
        } else {
          // Stored by a path that did not check it: still deliverable, as base64.
          g.writeStringField("content_type", "bytes");
          g.writeFieldName("body");
          g.writeBinary(p);
        }
      }
      case TEXT -> {
        g.writeStringField("content_type", "text");
        g.writeStringField("body", new String(p, StandardCharsets.UTF_8));
      }
      case BYTES -> {
        g.writeStringField("content_type", "bytes");
        g.writeFieldName("body");
        g.writeBinary(p);
      }
    }
    g.writeObjectFieldStart("headers");
    for (Map.Entry<String, String> h : m.headers().entrySet()) {
      g.writeStringField(h.getKey(), h.getValue());
    }
    g.writeEndObject();
    g.writeFieldName("metadata");
    if (m.metadata() == null) {
      g.writeNull();
    } else if (Json.isValid(m.metadata())) {
      g.writeRawValue(m.metadata());
    } else {
      g.writeString(m.metadata());
    }
  }
}
