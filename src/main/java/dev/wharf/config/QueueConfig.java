package dev.wharf.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.core.QueueSettings;
import dev.wharf.core.QueueSettingsPatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One entry of the {@code queues} section: the queue's settings (defaults where the entry is
 * silent), the settings the entry names, and how webhooks reach it.
 */
public record QueueConfig(
    String name, QueueSettings settings, QueueSettingsPatch named, QueueIngest ingest) {

  static QueueConfig read(String name, ConfigNode n) {
    QueueSettings d = QueueSettings.defaultsFor(name);
    Duration visibility = n.duration("visibility_timeout", d.visibilityTimeout());
    Duration maxVisibility = n.duration("max_visibility_timeout", d.maxVisibilityTimeout());
    int maxAttempts =
        n.integer("max_attempts", d.maxAttempts(), Integer.MIN_VALUE, Integer.MAX_VALUE);
    String dlq = deadLetterQueue(n, d.deadLetterQueue());
    Duration delay = n.duration("delay", d.delay());
    Duration ttl = n.duration("ttl", d.ttl());
    if (ttl != null && ttl.isZero()) {
      ttl = null; // "0s" reads as "no TTL", as in the API
    }
    List<String> tokens = new ArrayList<>(n.strings("consumer_tokens"));
    // qhook names a queue's single bearer token api_key; it joins the consumer tokens.
    String apiKey = n.string("api_key", null);
    if (apiKey != null) {
      tokens.add(apiKey);
    }
    QueueIngest ingest = readIngest(n);
    n.rejectUnknown();
    // What the entry says, apart from the defaults: a queue that already exists takes only these.
    QueueSettingsPatch named =
        new QueueSettingsPatch(
            n.has("visibility_timeout") ? visibility : null,
            n.has("max_visibility_timeout") ? maxVisibility : null,
            n.has("max_attempts") ? maxAttempts : null,
            n.has("dead_letter_queue") ? Optional.ofNullable(dlq) : null,
            n.has("delay") ? delay : null,
            n.has("ttl") ? Optional.ofNullable(ttl) : null,
            n.has("consumer_tokens") || n.has("api_key") ? List.copyOf(tokens) : null);

    QueueSettings settings =
        new QueueSettings(visibility, maxVisibility, maxAttempts, dlq, delay, ttl, tokens);
    List<String> problems = new ArrayList<>(settings.problems(name));
    problems.addAll(named.problems());
    for (String problem : problems) {
      // Core phrases problems as "field: reason"; the field is under this queue's path, but for
      // its name, which is the entry's key and no field of it.
      if (problem.startsWith("name: ")) {
        n.problems().add(n.path(), problem.substring("name: ".length()));
      } else {
        n.problems().addOfField(n.path(), problem);
      }
    }
    return new QueueConfig(name, settings, named, ingest);
  }

  /** A name, or {@code ""}/{@code false} for none (dead messages are then dropped). */
  private static String deadLetterQueue(ConfigNode n, String dflt) {
    JsonNode v = n.raw("dead_letter_queue");
    if (v == null) {
      return dflt;
    }
    if (v.isBoolean() && !v.booleanValue()) {
      return null;
    }
    if (v.isTextual() || v.isNumber()) {
      // A name may be all digits, written unquoted.
      String s = v.asText().trim();
      return s.isEmpty() || s.equals("false") ? null : s;
    }
    n.problems()
        .add(
            n.pathOf("dead_letter_queue"),
            "expected a queue name, \"\" or false, got " + ConfigNode.describe(v));
    return dflt;
  }

  private static QueueIngest readIngest(ConfigNode n) {
    String source = nonEmpty(n, "source");
    List<String> events = n.strings("events");
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).isBlank()) {
        n.problems().add(n.pathOf("events") + "[" + i + "]", "must not be empty");
      }
    }
    String filter = nonEmpty(n, "filter");
    String idempotencyKey = nonEmpty(n, "idempotency_key");
    return new QueueIngest(source, events, filter, idempotencyKey);
  }

  private static String nonEmpty(ConfigNode n, String key) {
    String v = n.string(key, null);
    if (v != null && v.isBlank()) {
      n.problems().add(n.pathOf(key), "must not be empty");
      return null;
    }
    return v;
  }
}
