package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.http.Api.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator's reading of {@code /metrics} after a known sequence: the counters say what was
 * done, the depth gauges what is left, and both agree with the queue's stats.
 */
class MetricsAccountingTest {
  @TempDir Path dir;

  @Test
  void countersAndGaugesSayWhatHappenedAndAgreeWithStats() {
    try (TestServer s = new TestServer(dir)) {
      Api api = s.api;
      assertThat(api.put("/v1/queues/q", "{\"visibility_timeout\": \"1s\", \"max_attempts\": 2}")
              .status())
          .isEqualTo(201);
      StringBuilder batch = new StringBuilder("{\"messages\": [");
      for (int i = 1; i <= 10; i++) {
        batch.append(i == 1 ? "" : ",").append("{\"body\": ").append(i).append('}');
      }
      assertThat(api.post("/v1/queues/q/messages", batch + "]}").status()).isEqualTo(201);
      agree(s, Map.of("ready", 10), Map.of("published", 10));

      List<String> held =
          leases(api.post("/v1/queues/q/receive", "{\"max\": 6, \"visibility_timeout\": \"30s\"}"));
      assertThat(held).hasSize(6);
      agree(s, Map.of("ready", 4, "leased", 6), Map.of("published", 10));

      settle(api, "ack", held.subList(0, 2), "", "acked");
      settle(api, "nack", held.subList(2, 4), ", \"dead\": true, \"reason\": \"bad\"", "dead");
      settle(api, "nack", held.subList(4, 5), "", "retried");
      settle(api, "defer", held.subList(5, 6), "", "deferred");
      agree(
          s,
          Map.of("ready", 6, "dead", 2),
          Map.of("published", 10, "acked", 2, "dead", 2, "nacked", 1, "deferred", 1));

      // Leased under the queue's 1 s: the nacked message is on its last attempt, so when the
      // leases run out it dies and the other five are ready again.
      assertThat(leases(api.post("/v1/queues/q/receive", "{\"max\": 10}"))).hasSize(6);
      agree(s, Map.of("leased", 6, "dead", 2), Map.of("dead", 2));
      s.advance(Duration.ofMillis(1_100));
      agree(
          s,
          Map.of("ready", 5, "dead", 3),
          Map.of("published", 10, "acked", 2, "dead", 3, "nacked", 1, "deferred", 1));
      JsonNode dlq = api.get("/v1/queues/q/dlq").json().get("messages");
      List<String> reasons = new ArrayList<>();
      dlq.forEach(m -> reasons.add(m.get("dead_reason").asText()));
      assertThat(reasons).containsExactly("bad", "bad", "max_attempts_exceeded");

      for (int i = 0; i < 3; i++) {
        api.post("/v1/queues/q/messages", "{\"body\": \"short\", \"ttl\": \"2s\"}");
      }
      agree(s, Map.of("ready", 8, "dead", 3), Map.of("published", 13));
      s.advance(Duration.ofMillis(2_100));
      agree(
          s,
          Map.of("ready", 5, "expired", 3, "dead", 3),
          Map.of("published", 13, "expired", 3, "dead", 3));

      assertThat(api.post("/v1/queues/q/dlq/redrive", "{}").json().get("redriven").asInt())
          .isEqualTo(3);
      agree(s, Map.of("ready", 8, "expired", 3), Map.of("dead", 3, "published", 13));

      assertThat(api.post("/v1/queues/q/purge", "").json().get("purged").asInt()).isEqualTo(11);
      agree(
          s,
          Map.of(),
          Map.of("published", 13, "acked", 2, "dead", 3, "nacked", 1, "deferred", 1,
              "expired", 3));
      assertThat(api.get("/metrics").text())
          .contains("wharf_queue_oldest_ready_age_seconds{queue=\"q\"} 0.0");
    }
  }

  /**
   * Each pass of the reapers (ten a second) is two of the writer's transactions, lease expiry
   * then TTL, even when it finds nothing: an idle server counts twenty commits a second.
   */
  @Test
  void anIdleReaperPassCommitsTwice() {
    try (TestServer s = new TestServer(dir)) {
      s.store.bindMetrics(s.registry);
      // The first pass also runs the slower ones, due every 10 s.
      s.advance(Duration.ofMillis(100));
      double before = sample(s.api.get("/metrics").text(), "wharf_sqlite_commits_total");
      for (int i = 0; i < 10; i++) {
        s.advance(Duration.ofMillis(100));
      }
      double after = sample(s.api.get("/metrics").text(), "wharf_sqlite_commits_total");
      assertThat(after - before).isEqualTo(20.0);
    }
  }

  /**
   * The depth gauges are {@code depths} (states not named are 0) and the counters named in
   * {@code counters} have those values; {@code GET /v1/queues/q} says the same, its {@code dead}
   * being the DLQ's depth, and the oldest ready age is the same in both.
   */
  private static void agree(
      TestServer s, Map<String, Integer> depths, Map<String, Integer> counters) {
    String metrics = s.api.get("/metrics").text();
    JsonNode stats = s.api.get("/v1/queues/q").json().get("stats");
    for (String state : List.of("ready", "delayed", "leased", "expired")) {
      int want = depths.getOrDefault(state, 0);
      assertThat(sample(metrics, "wharf_queue_depth{queue=\"q\",state=\"" + state + "\"}"))
          .as(state)
          .isEqualTo((double) want);
      assertThat(stats.get(state).asInt()).as("stats." + state).isEqualTo(want);
    }
    int dead = depths.getOrDefault("dead", 0);
    assertThat(stats.get("dead").asInt()).as("stats.dead").isEqualTo(dead);
    assertThat(sample(metrics, "wharf_queue_depth{queue=\"q.dlq\",state=\"ready\"}"))
        .as("the DLQ's depth")
        .isEqualTo((double) dead);
    counters.forEach(
        (name, want) ->
            assertThat(sample(metrics, "wharf_messages_" + name + "_total{queue=\"q\"}"))
                .as(name)
                .isEqualTo((double) want));
    for (String name : List.of("published", "acked", "dropped")) {
      assertThat(stats.get(name).asDouble())
          .as("stats." + name)
          .isEqualTo(sample(metrics, "wharf_messages_" + name + "_total{queue=\"q\"}"));
    }
    double age = sample(metrics, "wharf_queue_oldest_ready_age_seconds{queue=\"q\"}");
    JsonNode ageMs = stats.get("oldest_ready_age_ms");
    assertThat(ageMs.isNull() ? 0.0 : ageMs.asDouble() / 1000)
        .as("oldest ready age")
        .isEqualTo(age);
  }

  private static List<String> leases(Reply receive) {
    assertThat(receive.status()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    receive.json().get("messages").forEach(m -> ids.add(m.get("lease_id").asText()));
    return ids;
  }

  private static void settle(
      Api api, String route, List<String> leases, String extra, String outcome) {
    String ids = String.join("\", \"", leases);
    Reply r = api.post("/v1/queues/q/" + route, "{\"lease_ids\": [\"" + ids + "\"]" + extra + "}");
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    r.json().get("results").forEach(x -> assertThat(x.get("outcome").asText()).isEqualTo(outcome));
  }

  private static double sample(String text, String series) {
    return text.lines()
        .filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no sample " + series));
  }
}
