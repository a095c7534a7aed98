package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through the real server: below {@code storage.disk_free_limit} publishes are refused with a
 * retryable 503 and readiness says why, while receives, acks and purges go on; with room again
 * publishes are taken.
 */
class SqliteDiskFreeLimitOverHttpTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final AtomicLong free = new AtomicLong(1L << 30);
  private final AtomicLong nanos = new AtomicLong(1_000);
  private ServedStore served;
  private HttpClient client;

  @BeforeEach
  void open() {
    SqliteStore store = new SqliteStore(dir.resolve("wharf.db"));
    store.diskFreeLimit(50L << 20);
    store.diskFreeFrom(free::get, nanos::get);
    served = ServedStore.serve(store);
    client = HttpClient.newHttpClient();
  }

  @AfterEach
  void close() {
    client.close();
    served.close();
  }

  @Test
  void belowTheLimitPublishesAreRefusedAndTheRestGoesOn() throws Exception {
    assertThat(send("PUT", "/v1/queues/q", "{}").statusCode()).isBetween(200, 299);
    for (String body : new String[] {"a", "b"}) {
      assertThat(send("POST", "/v1/queues/q/messages", "{\"body\":\"" + body + "\"}")
          .statusCode()).isEqualTo(201);
    }
    HttpResponse<String> got = send("POST", "/v1/queues/q/receive", "{\"max\":1}");
    String lease = JSON.readTree(got.body()).path("messages").get(0).path("lease_id").asText();

    free.set(10L << 20);
    nanos.addAndGet(DiskFreeLimit.CHECK_EVERY_NANOS);

    for (String[] publish : new String[][] {
        {"/v1/queues/q/messages", "{\"body\":\"c\"}"},
        {"/v1/queues/q/messages", "{\"messages\":[{\"body\":\"c\"}]}"}}) {
      HttpResponse<String> refused = send("POST", publish[0], publish[1]);
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
      JsonNode error = JSON.readTree(refused.body());
      assertThat(error.path("code").asText()).isEqualTo("unavailable");
      // A refusal ahead of a full disk, not a failure: the detail says why and nothing else.
      assertThat(error.path("detail").asText())
          .startsWith("the disk holding ")
          .contains("less than storage.disk_free_limit (50.0 MB)")
          .endsWith(": publishes are refused until it has more")
          .doesNotContain("failed");
    }
    HttpResponse<String> ready = send("GET", "/readyz", "");
    assertThat(ready.statusCode()).isEqualTo(503);
    assertThat(ready.body()).contains("storage.disk_free_limit");

    // What drains the queue goes on: an ack, a receive, a purge.
    HttpResponse<String> ack = send("POST", "/v1/queues/q/ack", "{\"lease_id\":\"" + lease + "\"}");
    assertThat(ack.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(ack.body()).path("results").get(0).path("outcome").asText())
        .isEqualTo("acked");
    assertThat(JSON.readTree(send("POST", "/v1/queues/q/receive", "{\"max\":10}").body())
        .path("messages")).hasSize(1);
    assertThat(send("POST", "/v1/queues/q/purge", "").statusCode()).isBetween(200, 299);

    free.set(60L << 20);
    nanos.addAndGet(DiskFreeLimit.CHECK_EVERY_NANOS);
    assertThat(send("POST", "/v1/queues/q/messages", "{\"body\":\"d\"}").statusCode())
        .isEqualTo(201);
    assertThat(send("GET", "/readyz", "").statusCode()).isEqualTo(200);
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return client.send(served.request(method, path, body), HttpResponse.BodyHandlers.ofString());
  }
}
