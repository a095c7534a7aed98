package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.http.Api.Reply;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The native API end to end, as the curl walk-through in docs/api.md uses it. */
class NativeWalkthroughTest {
  @TempDir Path dir;
  TestServer server;
  Api api;

  @BeforeEach
  void start() {
    server = new TestServer(dir);
    api = server.api;
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void publishReceiveAckNackUntilDeadThenRedrive() {
    Reply created =
        api.put("/v1/queues/billing", "{\"max_attempts\": 2, \"visibility_timeout\": \"1m\"}");
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.json().at("/settings/max_attempts").asInt()).isEqualTo(2);
    assertThat(created.json().at("/settings/visibility_timeout").asText()).isEqualTo("1m");
    assertThat(created.json().at("/settings/dead_letter_queue").asText()).isEqualTo("billing.dlq");
    assertThat(api.put("/v1/queues/billing", "{\"delay\": \"0s\"}").status()).isEqualTo(200);

    Reply pub =
        api.post(
            "/v1/queues/billing/messages",
            "{\"body\": {\"invoice\": 42, \"amount\": 1.10}, \"headers\": {\"x-source\":"
                + " \"billing\"}, \"metadata\": {\"tenant\": \"acme\"}}");
    assertThat(pub.status()).isEqualTo(201);
    String id = pub.json().get("id").asText();
    assertThat(pub.json().get("duplicate").asBoolean()).isFalse();
    assertThat(pub.json().get("replaced").asBoolean()).isFalse();

    // First delivery, acked.
    JsonNode m = receiveOne("billing");
    assertThat(m.get("id").asText()).isEqualTo(id);
    assertThat(m.get("attempt").asInt()).isEqualTo(1);
    assertThat(m.get("content_type").asText()).isEqualTo("json");
    assertThat(m.at("/body/invoice").asInt()).isEqualTo(42);
    assertThat(m.at("/body/amount").decimalValue()).isEqualByComparingTo("1.10");
    assertThat(m.at("/headers/x-source").asText()).isEqualTo("billing");
    assertThat(m.at("/metadata/tenant").asText()).isEqualTo("acme");
    assertThat(m.get("published_at").asText()).isEqualTo("2026-01-01T00:00:00.000Z");
    assertThat(m.get("lease_until").asText()).isEqualTo("2026-01-01T00:01:00.000Z");
    Reply ack = api.post("/v1/queues/billing/ack", "{\"lease_id\": \"" + lease(m) + "\"}");
    assertThat(ack.status()).isEqualTo(200);
    assertThat(ack.json().get("succeeded").asInt()).isEqualTo(1);
    assertThat(ack.json().at("/results/0/outcome").asText()).isEqualTo("acked");
    // A repeat of an ack that succeeded is a success again.
    Reply again = api.post("/v1/queues/billing/ack", "{\"lease_ids\": [\"" + lease(m) + "\"]}");
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json().at("/results/0/outcome").asText()).isEqualTo("acked");
    // On another queue's route the lease was never held: the answer is the conflict it was before
    // the ack, not the ack's outcome.
    api.put("/v1/queues/elsewhere", "{}");
    Reply foreign = api.post("/v1/queues/elsewhere/ack", "{\"lease_id\": \"" + lease(m) + "\"}");
    assertThat(foreign.status()).isEqualTo(409);
    assertThat(foreign.json().at("/results/0/outcome").asText()).isEqualTo("lease_not_found");

    // Second message: nacked until its attempts run out, then it is in the DLQ.
    String id2 =
        api.post("/v1/queues/billing/messages", "{\"body\": \"hello\", \"content_type\": \"text\"}")
            .json()
            .get("id")
            .asText();
    JsonNode first = receiveOne("billing");
    assertThat(first.get("body").asText()).isEqualTo("hello");
    Reply nack = api.post("/v1/queues/billing/nack", "{\"lease_id\": \"" + lease(first) + "\"}");
    assertThat(nack.status()).isEqualTo(200);
    assertThat(nack.json().at("/results/0/outcome").asText()).isEqualTo("retried");
    JsonNode second = receiveOne("billing");
    assertThat(second.get("attempt").asInt()).isEqualTo(2);
    Reply dead =
        api.post(
            "/v1/queues/billing/nack",
            "{\"lease_id\": \"" + lease(second) + "\", \"delay\": \"5s\","
                + " \"reason\": \"smtp 550\"}");
    assertThat(dead.json().at("/results/0/outcome").asText()).isEqualTo("dead");
    assertThat(api.post("/v1/queues/billing/receive", "{}").json().get("messages")).isEmpty();

    Reply dlq = api.get("/v1/queues/billing/dlq");
    assertThat(dlq.status()).isEqualTo(200);
    assertThat(dlq.json().get("messages")).hasSize(1);
    JsonNode d = dlq.json().at("/messages/0");
    assertThat(d.get("id").asText()).isEqualTo(id2);
    assertThat(d.get("original_queue").asText()).isEqualTo("billing");
    // The nack that used up the attempts said why; that is the reason kept.
    assertThat(d.get("dead_reason").asText()).isEqualTo("smtp 550");
    assertThat(d.get("died_at").isNull()).isFalse();
    assertThat(dlq.json().get("next").isNull()).isTrue();
    assertThat(api.get("/v1/queues/billing").json().at("/stats/dead").asLong()).isEqualTo(1);

    Reply redrive = api.post("/v1/queues/billing/dlq/redrive", "{}");
    assertThat(redrive.status()).isEqualTo(200);
    assertThat(redrive.json().get("redriven").asInt()).isEqualTo(1);
    JsonNode back = receiveOne("billing");
    assertThat(back.get("id").asText()).isEqualTo(id2);
    assertThat(back.get("attempt").asInt()).isEqualTo(1);
    assertThat(api.get("/v1/queues/billing/dlq").json().get("messages")).isEmpty();
  }

  /** The README's walk-through as curl sends it: {@code -d} labels each body as a form. */
  @Test
  void readmeCurlWalkThrough() {
    assertThat(curl("PUT", "/v1/queues/orders", "{\"max_attempts\": 3}").status()).isEqualTo(201);
    Reply pub =
        curl(
            "POST",
            "/v1/queues/orders/messages",
            "{\"body\": {\"order\": 42}, \"headers\": {\"x-source\": \"shop\"}}");
    assertThat(pub.text())
        .matches("\\{\"id\":\"[0-9A-Z]{26}\",\"duplicate\":false,\"replaced\":false}");
    Reply got = curl("POST", "/v1/queues/orders/receive", "{\"max\": 10, \"wait\": \"10s\"}");
    assertThat(got.json().at("/messages/0/body/order").asInt()).isEqualTo(42);
    assertThat(
            curl("POST", "/v1/queues/orders/ack", "{\"lease_id\": \"" + sedLease(got) + "\"}")
                .status())
        .isEqualTo(200);

    curl(
        "POST",
        "/v1/queues/orders/messages",
        "{\"body\": \"will fail\", \"content_type\": \"text\"}");
    for (int i = 1; i <= 3; i++) {
      String lease = sedLease(curl("POST", "/v1/queues/orders/receive", "{}"));
      Reply nack = curl("POST", "/v1/queues/orders/nack", "{\"lease_id\": \"" + lease + "\"}");
      assertThat(nack.json().at("/results/0/outcome").asText())
          .isEqualTo(i < 3 ? "retried" : "dead");
    }
    Reply dlq = api.get("/v1/queues/orders/dlq");
    assertThat(dlq.json().at("/messages/0/body").asText()).isEqualTo("will fail");
    assertThat(dlq.json().at("/messages/0/dead_reason").asText()).isNotEmpty();
    assertThat(curl("POST", "/v1/queues/orders/dlq/redrive", "{}").json().get("redriven").asInt())
        .isEqualTo(1);
    Reply stats = api.get("/v1/queues/orders");
    assertThat(stats.json().at("/stats/ready").asInt()).isEqualTo(1);
    assertThat(stats.json().at("/stats/dead").asInt()).isZero();
  }

  private Reply curl(String method, String path, String data) {
    return api.send(
        method, path, BodyPublishers.ofString(data), "application/x-www-form-urlencoded");
  }

  /** What the README's sed pulls out of a receive answer. */
  private static String sedLease(Reply r) {
    Matcher m = Pattern.compile("\"lease_id\":\"([^\"]*)\"").matcher(r.text());
    assertThat(m.find()).as(r.text()).isTrue();
    return m.group(1);
  }

  @Test
  void headersComeBackInTheOrderSent() {
    api.put("/v1/queues/jobs", "{}");
    List<String> names = List.of("zeta", "X-Case", "alpha", "x-case", "m", "b", "Y", "a-1");
    StringBuilder headers = new StringBuilder();
    for (String n : names) {
      headers.append(headers.isEmpty() ? "" : ",").append('"').append(n).append("\":\"v\"");
    }
    api.post("/v1/queues/jobs/messages", "{\"body\": 1, \"headers\": {" + headers + "}}");
    List<String> got = new ArrayList<>();
    receiveOne("jobs").get("headers").fieldNames().forEachRemaining(got::add);
    assertThat(got).containsExactlyElementsOf(names);
  }

  @Test
  void anEmptyDeadReasonIsNone() {
    api.put("/v1/queues/jobs", "{}");
    api.post("/v1/queues/jobs/messages", "{\"body\": 2}");
    JsonNode m = receiveOne("jobs");
    api.post(
        "/v1/queues/jobs/nack",
        "{\"lease_id\": \"" + lease(m) + "\", \"dead\": true, \"reason\": \"\"}");
    assertThat(api.get("/v1/queues/jobs/dlq").json().at("/messages/0/dead_reason").asText())
        .isEqualTo("nacked_dead");
  }

  @Test
  void deadOnRequestWithReasonAndDeferAndExtend() {
    api.put("/v1/queues/jobs", "{}");
    api.post("/v1/queues/jobs/messages", "{\"body\": 1}");
    JsonNode m = receiveOne("jobs");
    Reply deferred = api.post("/v1/queues/jobs/defer", "{\"lease_id\": \"" + lease(m) + "\"}");
    assertThat(deferred.json().at("/results/0/outcome").asText()).isEqualTo("deferred");
    JsonNode m2 = receiveOne("jobs");
    assertThat(m2.get("attempt").asInt()).isEqualTo(1);
    Reply extended =
        api.post("/v1/queues/jobs/extend", "{\"lease_id\": \"" + lease(m2) + "\", \"by\": \"2m\"}");
    assertThat(extended.status()).isEqualTo(200);
    assertThat(extended.json().at("/results/0/outcome").asText()).isEqualTo("extended");
    assertThat(extended.json().at("/results/0/lease_until").asText())
        .isEqualTo("2026-01-01T00:02:00.000Z");
    Reply dead =
        api.post(
            "/v1/queues/jobs/nack",
            "{\"lease_id\": \"" + lease(m2) + "\", \"dead\": true, \"reason\": \"poison\"}");
    assertThat(dead.json().at("/results/0/outcome").asText()).isEqualTo("dead");
    assertThat(api.get("/v1/queues/jobs/dlq").json().at("/messages/0/dead_reason").asText())
        .isEqualTo("poison");
    // A list written as null names no message: it is refused, not read as all of them.
    Reply none = api.post("/v1/queues/jobs/dlq/redrive", "{\"ids\": null}");
    assertThat(none.status()).isEqualTo(400);
    assertThat(none.detail()).contains("leave ids out to redrive every dead message");
    Reply some =
        api.post(
            "/v1/queues/jobs/dlq/redrive",
            "{\"ids\": [\"" + m.get("id").asText() + "\", \"0NOSUCHMESSAGE\"]}");
    assertThat(some.json().get("redriven").asInt()).isEqualTo(1);
    assertThat(some.json().get("skipped").toString()).isEqualTo("[\"0NOSUCHMESSAGE\"]");
    // A redrive of all says nothing of skipped ids: it named none.
    assertThat(api.post("/v1/queues/jobs/dlq/redrive", "{}").text()).isEqualTo("{\"redriven\":0}");
  }

  @Test
  void batchPublishIsAllOrNoneAndAnswersEachMessage() {
    api.put("/v1/queues/batch", "{}");
    String bytes = Base64.getEncoder().encodeToString(new byte[] {0, 1, 2, (byte) 255});
    Reply r =
        api.post(
            "/v1/queues/batch/messages",
            "{\"messages\": [{\"body\": {\"n\": 1}}, {\"body\": \"two\", \"content_type\":"
                + " \"text\"}, {\"body\": \""
                + bytes
                + "\", \"content_type\": \"bytes\"}]}");
    assertThat(r.status()).isEqualTo(201);
    assertThat(r.json().get("messages")).hasSize(3);
    assertThat(r.json().at("/messages/2/id").asText()).isNotEmpty();

    Reply bad =
        api.post(
            "/v1/queues/batch/messages",
            "{\"messages\": [{\"body\": 1}, {\"body\": 2, \"delay\": \"-1s\"}]}");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(api.get("/v1/queues/batch").json().at("/stats/ready").asInt()).isEqualTo(3);

    Reply got =
        api.post("/v1/queues/batch/receive", "{\"max\": 10, \"visibility_timeout\": \"10s\"}");
    JsonNode msgs = got.json().get("messages");
    assertThat(msgs).hasSize(3);
    assertThat(msgs.get(0).at("/body/n").asInt()).isEqualTo(1);
    assertThat(msgs.get(1).get("body").asText()).isEqualTo("two");
    assertThat(msgs.get(2).get("content_type").asText()).isEqualTo("bytes");
    assertThat(msgs.get(2).get("body").asText()).isEqualTo(bytes);
  }

  @Test
  void settleAnswersPerLeaseWithConflicts() {
    api.put("/v1/queues/q", "{}");
    api.post("/v1/queues/q/messages", "{\"messages\": [{\"body\": 1}, {\"body\": 2}]}");
    JsonNode got =
        api.post("/v1/queues/q/receive", "{\"max\": 2, \"visibility_timeout\": \"5s\"}")
            .json()
            .get("messages");
    String a = lease(got.get(0));
    String b = lease(got.get(1));

    Reply mixed =
        api.post("/v1/queues/q/ack", "{\"lease_ids\": [\"" + a + "\", \"1.ffffffffffffffff\"]}");
    assertThat(mixed.status()).isEqualTo(409);
    assertThat(mixed.code()).isEqualTo("lease_conflict");
    assertThat(mixed.json().get("succeeded").asInt()).isEqualTo(1);
    assertThat(mixed.json().at("/results/0/outcome").asText()).isEqualTo("acked");
    assertThat(mixed.json().at("/results/1/outcome").asText()).isEqualTo("lease_not_found");

    // The second lease runs out: its message is ready again and the old lease is a conflict.
    server.advance(Duration.ofSeconds(6));
    Reply stale = api.post("/v1/queues/q/ack", "{\"lease_id\": \"" + b + "\"}");
    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.json().at("/results/0/outcome").asText())
        .isIn("lease_expired", "lease_not_found");
    JsonNode again = receiveOne("q");
    assertThat(again.get("attempt").asInt()).isEqualTo(2);
  }

  @Test
  void queueListPagesWhenALimitIsGiven() {
    for (String name : List.of("p-c", "p-a", "p-B", "p-b")) {
      api.put("/v1/queues/" + name, "{}");
    }
    Reply all = api.get("/v1/queues");
    assertThat(all.json().get("queues").findValuesAsText("name"))
        .containsSubsequence("p-B", "p-a", "p-b", "p-c");
    assertThat(all.json().get("next").isNull()).isTrue();

    // Each queue has its DLQ, named after it: they sort in between.
    Reply first = api.get("/v1/queues?limit=3&after=p-");
    assertThat(first.json().get("queues").findValuesAsText("name"))
        .containsExactly("p-B", "p-B.dlq", "p-a");
    assertThat(first.json().get("next").asText()).isEqualTo("p-a");
    assertThat(first.json().at("/queues/0/stats/ready").asInt()).isZero();
    Reply second = api.get("/v1/queues?limit=3&after=p-a");
    assertThat(second.json().get("queues").findValuesAsText("name"))
        .containsExactly("p-a.dlq", "p-b", "p-b.dlq");
    Reply rest = api.get("/v1/queues?limit=1000&after=p-b.dlq");
    assertThat(rest.json().get("queues").findValuesAsText("name"))
        .startsWith("p-c", "p-c.dlq")
        .doesNotContain("p-b.dlq");
    assertThat(rest.json().get("next").isNull()).isTrue();
    assertThat(api.get("/v1/queues?limit=1&after=").json().get("queues")).hasSize(1);

    assertThat(api.get("/v1/queues?limit=0").code()).isEqualTo("invalid_param");
    assertThat(api.get("/v1/queues?limit=1001").code()).isEqualTo("invalid_param");
    assertThat(api.get("/v1/queues?limit=x").code()).isEqualTo("invalid_param");
    assertThat(api.get("/v1/queues?page=2").status()).isEqualTo(400);
  }

  @Test
  void browseMessageByIdDeletePurgeAndDeleteQueue() {
    api.put("/v1/queues/b", "{}");
    String id1 = api.post("/v1/queues/b/messages", "{\"body\": 1}").json().get("id").asText();
    api.post("/v1/queues/b/messages", "{\"body\": 2, \"delay\": \"1h\"}");
    api.post("/v1/queues/b/messages", "{\"body\": 3}");
    receiveOne("b");

    assertThat(api.get("/v1/queues/b/messages").json().get("messages")).hasSize(3);
    assertThat(api.get("/v1/queues/b/messages?state=delayed").json().at("/messages/0/body").asInt())
        .isEqualTo(2);
    assertThat(
            api.get("/v1/queues/b/messages?state=delayed").json().at("/messages/0/state").asText())
        .isEqualTo("delayed");
    assertThat(api.get("/v1/queues/b/messages?state=leased").json().at("/messages/0/id").asText())
        .isEqualTo(id1);
    assertThat(api.get("/v1/queues/b/messages?state=ready").json().get("messages")).hasSize(1);

    Reply page1 = api.get("/v1/queues/b/messages?limit=2");
    assertThat(page1.json().get("messages")).hasSize(2);
    String next = page1.json().get("next").asText();
    Reply page2 = api.get("/v1/queues/b/messages?limit=2&after=" + next);
    assertThat(page2.json().get("messages")).hasSize(1);
    assertThat(page2.json().get("next").isNull()).isTrue();

    Reply one = api.get("/v1/queues/b/messages/" + id1);
    assertThat(one.status()).isEqualTo(200);
    assertThat(one.json().get("state").asText()).isEqualTo("leased");
    assertThat(one.json().has("lease_id")).isFalse();
    assertThat(api.delete("/v1/queues/b/messages/" + id1).status()).isEqualTo(204);
    assertThat(api.get("/v1/queues/b/messages/" + id1).code()).isEqualTo("message_not_found");

    Reply purged = api.post("/v1/queues/b/purge", "");
    assertThat(purged.json().get("purged").asLong()).isEqualTo(2);
    api.post("/v1/queues/b/messages", "{\"body\": 4}");
    assertThat(curl("POST", "/v1/queues/b/purge", "{}").json().get("purged").asLong())
        .isEqualTo(1);
    Reply list = api.get("/v1/queues");
    assertThat(list.json().get("queues").findValuesAsText("name")).contains("b");
    assertThat(api.delete("/v1/queues/b").status()).isEqualTo(204);
    assertThat(api.get("/v1/queues/b").code()).isEqualTo("queue_not_found");
    assertThat(api.delete("/v1/queues/b").status()).isEqualTo(404);
  }

  @Test
  void idempotencyKeyAndKeyReplacement() {
    api.put("/v1/queues/k", "{}");
    Reply a = api.post("/v1/queues/k/messages", "{\"body\": 1, \"idempotency_key\": \"evt_1\"}");
    Reply b = api.post("/v1/queues/k/messages", "{\"body\": 2, \"idempotency_key\": \"evt_1\"}");
    assertThat(b.status()).isEqualTo(201);
    assertThat(b.json().get("duplicate").asBoolean()).isTrue();
    assertThat(b.json().get("id").asText()).isEqualTo(a.json().get("id").asText());
    Reply c = api.post("/v1/queues/k/messages", "{\"body\": 3, \"key\": \"inv-42\"}");
    Reply d = api.post("/v1/queues/k/messages", "{\"body\": 4, \"key\": \"inv-42\"}");
    assertThat(d.json().get("replaced").asBoolean()).isTrue();
    assertThat(d.json().get("id").asText()).isEqualTo(c.json().get("id").asText());
  }

  @Test
  void aLeasedVersionOfAKeyNackedAfterANewerPublishIsNotDeliveredAgain() {
    api.put("/v1/queues/k", "{}");
    Reply v1 = api.post("/v1/queues/k/messages", "{\"body\": 1, \"key\": \"inv-7\"}");
    JsonNode leased = receiveOne("k");
    assertThat(leased.get("id").asText()).isEqualTo(v1.json().get("id").asText());
    Reply v2 = api.post("/v1/queues/k/messages", "{\"body\": 2, \"key\": \"inv-7\"}");
    assertThat(v2.json().get("replaced").asBoolean()).isFalse();

    Reply nack = api.post("/v1/queues/k/nack", "{\"lease_id\": \"" + lease(leased) + "\"}");
    assertThat(nack.status()).isEqualTo(200);
    assertThat(nack.json().at("/results/0/outcome").asText()).isEqualTo("retried");

    Reply next = api.post("/v1/queues/k/receive", "{\"max\": 10}");
    assertThat(next.json().get("messages")).hasSize(1);
    assertThat(next.json().at("/messages/0/id").asText())
        .isEqualTo(v2.json().get("id").asText());
    assertThat(next.json().at("/messages/0/body").asInt()).isEqualTo(2);
    assertThat(api.get("/metrics").text())
        .contains("wharf_messages_replaced_total{queue=\"k\"} 1.0")
        .contains("wharf_messages_nacked_total{queue=\"k\"} 0.0");
  }

  @Test
  void healthReadinessAndMetrics() {
    assertThat(api.get("/healthz").json().get("status").asText()).isEqualTo("ok");
    assertThat(api.get("/readyz").status()).isEqualTo(200);
    api.put("/v1/queues/m", "{}");
    api.post("/v1/queues/m/messages", "{\"body\": 1}");
    api.get("/v1/queues/nope");
    // That route answers on a thread of its own, which times the request just after handing the
    // answer over: the client may read it, and scrape, before it is counted.
    Reply metrics = scrapeShowing("status=\"404\"");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.text())
        .contains("wharf_http_request_seconds_bucket{")
        .contains("route=\"/v1/queues/{name}/messages\"")
        .contains("status=\"404\"")
        .contains("wharf_messages_published_total{queue=\"m\"} 1.0")
        .contains("wharf_queue_depth{queue=\"m\",state=\"ready\"} 1.0")
        .contains("wharf_queue_oldest_ready_age_seconds{queue=\"m\"} 0.0")
        .doesNotContain("route=\"/v1/queues/nope\"");
    server.clock.advance(Duration.ofMillis(90_500));
    assertThat(api.get("/metrics").text())
        .contains("wharf_queue_oldest_ready_age_seconds{queue=\"m\"} 90.5")
        .contains("wharf_queue_oldest_ready_age_seconds{queue=\"m.dlq\"} 0.0");
    // Every metric says what it counts.
    assertThat(metrics.text().lines().filter(l -> l.startsWith("# HELP ")))
        .filteredOn(l -> l.startsWith("# HELP wharf_"))
        .isNotEmpty()
        .allSatisfy(l -> assertThat(l).matches("# HELP \\S+ \\S.*"));
  }

  @Test
  void aQueuesCountersStartAtZeroAndDefersAreNotNacks() {
    api.put("/v1/queues/d", "{}");
    String fresh = api.get("/metrics").text();
    for (String c :
        List.of("published", "acked", "nacked", "deferred", "dead", "expired", "dropped")) {
      assertThat(fresh).contains("wharf_messages_" + c + "_total{queue=\"d\"} 0.0");
    }

    api.post("/v1/queues/d/messages", "{\"body\": 1}");
    String lease = receiveOne("d").get("lease_id").asText();
    assertThat(api.post("/v1/queues/d/defer", "{\"lease_id\": \"" + lease + "\"}").status())
        .isEqualTo(200);
    lease = receiveOne("d").get("lease_id").asText();
    api.post("/v1/queues/d/nack", "{\"lease_id\": \"" + lease + "\"}");

    assertThat(api.get("/metrics").text())
        .contains("wharf_messages_deferred_total{queue=\"d\"} 1.0")
        .contains("wharf_messages_nacked_total{queue=\"d\"} 1.0");
  }

  @Test
  void methodsOfAClientsOwnMakingShareOneMetricLabel() {
    api.put("/v1/queues/m", "{}");
    for (String method : List.of("BREW", "WHEN", "XYZZY")) {
      assertThat(api.send(method, "/v1/queues/m/ack", BodyPublishers.noBody(), null).status())
          .isEqualTo(405);
      assertThat(api.send(method, "/nowhere", BodyPublishers.noBody(), null).status())
          .isEqualTo(404);
    }
    api.send("DELETE", "/v1/queues/m/ack", BodyPublishers.noBody(), null);

    String metrics = api.get("/metrics").text();
    String count = "wharf_http_request_seconds_count";
    assertThat(metrics)
        .doesNotContain("method=\"BREW\"", "method=\"WHEN\"", "method=\"XYZZY\"")
        .contains(count + "{method=\"DELETE\",route=\"/v1/queues/{name}/ack\",status=\"405\"} 1\n")
        .contains(count + "{method=\"OTHER\",route=\"/v1/queues/{name}/ack\",status=\"405\"} 3\n")
        .contains(count + "{method=\"OTHER\",route=\"unmatched\",status=\"404\"} 3\n");
  }

  @Test
  void aDeadLetterQueueMadeWhileServingHasDepthMetrics() {
    api.put("/v1/queues/fresh", "{\"max_attempts\": 1}");
    api.post("/v1/queues/fresh/messages", "{\"body\": 1}");
    String lease = receiveOne("fresh").get("lease_id").asText();
    api.post("/v1/queues/fresh/nack", "{\"lease_id\": \"" + lease + "\"}");
    assertThat(api.get("/metrics").text())
        .contains("wharf_queue_depth{queue=\"fresh.dlq\",state=\"ready\"} 1.0");

    // Deleted, it is made again when the next message dies, and watched again.
    assertThat(api.delete("/v1/queues/fresh.dlq").status()).isEqualTo(204);
    assertThat(api.get("/metrics").text()).doesNotContain("queue=\"fresh.dlq\",state=");
    api.post("/v1/queues/fresh/messages", "{\"body\": 2}");
    lease = receiveOne("fresh").get("lease_id").asText();
    api.post("/v1/queues/fresh/nack", "{\"lease_id\": \"" + lease + "\"}");
    assertThat(api.get("/metrics").text())
        .contains("wharf_queue_depth{queue=\"fresh.dlq\",state=\"ready\"} 1.0");
  }

  @Test
  void deadLetterQueuesThatLeadBackAreRefused() {
    assertThat(api.put("/v1/queues/ca", "{\"dead_letter_queue\": \"cb\"}").status())
        .isEqualTo(201);
    Reply loop = api.put("/v1/queues/cb", "{\"dead_letter_queue\": \"ca\"}");
    assertThat(loop.status()).isEqualTo(400);
    assertThat(loop.json().get("detail").asText())
        .isEqualTo(
            "dead_letter_queue: leads back to this queue (cb -> ca -> cb), where a message that"
                + " keeps failing would move round forever");
    // Nothing changed: cb is still the DLQ made for ca, with none of its own.
    assertThat(api.get("/v1/queues/cb").json().at("/settings/dead_letter_queue").isNull())
        .isTrue();
    // A chain that ends is fine.
    assertThat(api.put("/v1/queues/cb", "{\"dead_letter_queue\": \"cc\"}").status())
        .isEqualTo(200);
    assertThat(api.put("/v1/queues/cc", "{\"dead_letter_queue\": \"ca\"}").status())
        .isEqualTo(400);
  }

  /** A scrape of /metrics that shows {@code text}, or the last one after 30 s. */
  private Reply scrapeShowing(String text) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      Reply metrics = api.get("/metrics");
      if (metrics.text().contains(text) || System.nanoTime() > deadline) {
        return metrics;
      }
      LockSupport.parkNanos(5_000_000);
    }
  }

  private JsonNode receiveOne(String queue) {
    Reply r = api.post("/v1/queues/" + queue + "/receive", "{\"max\": 1}");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().get("messages")).hasSize(1);
    return r.json().at("/messages/0");
  }

  private static String lease(JsonNode m) {
    return m.get("lease_id").asText();
  }
}
