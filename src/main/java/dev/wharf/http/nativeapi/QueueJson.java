package dev.wharf.http.nativeapi;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.wharf.core.Durations;
import dev.wharf.core.QueueSettings;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.core.QueueStats;
import dev.wharf.http.Fields;
import dev.wharf.store.QueueCounts;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/** Queue settings in and queues (settings + stats) out. */
final class QueueJson {
  private static final Set<String> SETTINGS =
      Set.of(
          "visibility_timeout",
          "max_visibility_timeout",
          "max_attempts",
          "dead_letter_queue",
          "delay",
          "ttl",
          "consumer_tokens");

  private QueueJson() {}

  static QueueSettingsPatch patch(ObjectNode body) {
    Fields f = Fields.of(body, SETTINGS);
    Optional<String> dlq = null;
    if (f.has("dead_letter_queue")) {
      String name = f.string("dead_letter_queue");
      dlq = name == null || name.isEmpty() ? Optional.empty() : Optional.of(name);
    }
    Optional<Duration> ttl = null;
    if (f.has("ttl")) {
      ttl = Optional.ofNullable(f.duration("ttl"));
    }
    return new QueueSettingsPatch(
        f.duration("visibility_timeout"),
        f.duration("max_visibility_timeout"),
        f.integer("max_attempts"),
        dlq,
        f.duration("delay"),
        ttl,
        f.strings("consumer_tokens"));
  }

  static void queue(JsonGenerator g, String name, QueueSettings s, QueueStats st, Instant now)
      throws IOException {
    g.writeStartObject();
    g.writeStringField("name", name);
    g.writeObjectFieldStart("settings");
    g.writeStringField("visibility_timeout", Durations.format(s.visibilityTimeout()));
    g.writeStringField("max_visibility_timeout", Durations.format(s.maxVisibilityTimeout()));
    g.writeNumberField("max_attempts", s.maxAttempts());
    g.writeStringField("dead_letter_queue", s.deadLetterQueue());
    g.writeStringField("delay", Durations.format(s.delay()));
    g.writeStringField("ttl", s.ttl() == null ? null : Durations.format(s.ttl()));
    // A count only: tokens are secrets and never leave the server.
    g.writeNumberField("consumer_tokens", s.consumerTokens().size());
    g.writeEndObject();
    QueueCounts c = st.counts();
    g.writeObjectFieldStart("stats");
    g.writeNumberField("ready", c.ready());
    g.writeNumberField("delayed", c.delayed());
    g.writeNumberField("leased", c.leased());
    g.writeNumberField("expired", c.expired());
    g.writeNumberField("dead", st.dead());
    if (c.readySince() == null) {
      g.writeNullField("oldest_ready_age_ms");
    } else {
      g.writeNumberField(
          "oldest_ready_age_ms", Math.max(0, Duration.between(c.readySince(), now).toMillis()));
    }
    g.writeNumberField("published", st.published());
    g.writeNumberField("acked", st.acked());
    g.writeNumberField("dropped", st.dropped());
    g.writeEndObject();
    g.writeEndObject();
  }
}
