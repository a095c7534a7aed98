package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.http.Api.Reply;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Consumers that were authorised and leased by a queue's settings when they began to wait: a
 * change of tokens or of the longest lease reaches them too, not only the requests after it.
 */
class SettingsChangeWhileWaitingTest extends OneServerTest {
  Api admin;
  Api old;
  Api fresh;

  @BeforeEach
  void queue() {
    admin = api;
    old = admin.withToken("old");
    fresh = admin.withToken("new");
    assertThat(admin.put("/v1/queues/w", "{\"consumer_tokens\": [\"old\"]}").status())
        .isEqualTo(201);
  }

  @Test
  void aParkedLongPollWhoseTokenIsRevokedEndsEmptyAndIsRefusedAfter() throws Exception {
    CompletableFuture<Reply> poll = parkedPoll(old, "{\"wait\": \"25s\"}");
    assertThat(admin.put("/v1/queues/w", "{\"consumer_tokens\": [\"new\"]}").status())
        .isEqualTo(200);
    // Far below the 25 s wait: the change ends it, with nothing leased.
    assertEndedEmpty(poll);
    assertThat(fresh.post("/v1/queues/w/messages", "{\"body\": \"secret\"}").status())
        .isEqualTo(201);
    assertThat(old.post("/v1/queues/w/receive", "{}").status()).isEqualTo(401);
    assertThat(admin.get("/v1/queues/w").json().at("/stats/ready").asInt()).isEqualTo(1);
  }

  @Test
  void aStreamWhoseTokenIsRevokedGetsAnErrorEventAndNothingMore() throws Exception {
    HttpResponse<Stream<String>> res =
        old.client.send(
            old.request("/v1/queues/w/stream?visibility_timeout=1m").GET().build(),
            BodyHandlers.ofLines());
    assertThat(res.statusCode()).isEqualTo(200);
    try (Stream<String> lines = res.body()) {
      Iterator<String> it = lines.iterator();
      assertThat(nextLine(it)).isEqualTo(": keepalive");
      assertThat(admin.put("/v1/queues/w", "{\"consumer_tokens\": [\"new\"]}").status())
          .isEqualTo(200);
      assertThat(fresh.post("/v1/queues/w/messages", "{\"body\": \"secret\"}").status())
          .isEqualTo(201);
      String error = null;
      for (int i = 0; i < 20 && error == null; i++) {
        String line = nextLine(it);
        assertThat(line).doesNotStartWith("event: message");
        if (line.equals("event: error")) {
          error = nextLine(it);
        }
      }
      assertThat(error).isEqualTo("data: the bearer token is not accepted");
    }
    // The message published after the change was never leased to the stream.
    assertThat(admin.get("/v1/queues/w").json().at("/stats/ready").asInt()).isEqualTo(1);
  }

  @Test
  void aParkedLongPollEndsWhenTheLongestLeaseShrinksBelowWhatItAskedFor() throws Exception {
    CompletableFuture<Reply> poll =
        parkedPoll(old, "{\"wait\": \"25s\", \"visibility_timeout\": \"600s\"}");
    assertThat(
            admin.put(
                    "/v1/queues/w",
                    "{\"visibility_timeout\": \"5s\", \"max_visibility_timeout\": \"10s\"}")
                .status())
        .isEqualTo(200);
    assertEndedEmpty(poll);
    // Asked again, the same lease is out of the queue's bounds now.
    assertThat(old.post("/v1/queues/w/receive", "{\"visibility_timeout\": \"600s\"}").status())
        .isEqualTo(400);
  }

  @Test
  void aDeadLetterQueuesParkedConsumerIsCheckedAgainstTheTokensOfTheQueueFeedingIt()
      throws Exception {
    assertThat(admin.put("/v1/queues/x", "{}").status()).isEqualTo(201);
    CompletableFuture<Reply> poll = parkedPoll(admin, "x.dlq", "{\"wait\": \"25s\"}");
    // x's tokens now guard its dead letters too: the anonymous wait on them ends.
    assertThat(admin.put("/v1/queues/x", "{\"consumer_tokens\": [\"t\"]}").status())
        .isEqualTo(200);
    assertEndedEmpty(poll);
    assertThat(old.post("/v1/queues/x.dlq/receive", "{}").status()).isEqualTo(403);
  }

  /** The poll was answered well before its 25 s wait ran out, with nothing leased. */
  private static void assertEndedEmpty(CompletableFuture<Reply> poll) throws Exception {
    Reply got = poll.get(10, TimeUnit.SECONDS);
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.json().get("messages")).isEmpty();
  }

  private CompletableFuture<Reply> parkedPoll(Api api, String body) throws Exception {
    return parkedPoll(api, "w", body);
  }

  private CompletableFuture<Reply> parkedPoll(Api api, String queue, String body)
      throws Exception {
    CompletableFuture<Reply> poll = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(() -> poll.complete(api.post("/v1/queues/" + queue + "/receive", body)));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.broker.waitingConsumers(queue) == 0 && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(server.broker.waitingConsumers(queue)).isEqualTo(1);
    return poll;
  }

  /** The next line, failing the test instead of hanging when none comes within a bound. */
  private static String nextLine(Iterator<String> it) throws Exception {
    return CompletableFuture.supplyAsync(it::next).get(10, TimeUnit.SECONDS);
  }
}
