package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through the real server: an ack is answered 200 while the WAL fsync behind it is held, a
 * publish sent meanwhile is not answered until that fsync returns, and the ack holds after a
 * restart; a failed fsync takes writes, readiness and liveness down until a restart.
 */
class SqliteSettleOverHttpTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final SyncGate gate = new SyncGate();
  private ServedStore served;
  private HttpClient client;

  @BeforeEach
  void open() {
    serve(SyncGate.storeAt(dir.resolve("wharf.db"), gate));
    client = HttpClient.newHttpClient();
  }

  @AfterEach
  void close() {
    gate.open();
    client.close();
    served.close();
  }

  @Test
  void anAckIsAnsweredWhileItsFsyncIsHeldAndAPublishIsNot() throws Exception {
    assertThat(send("PUT", "/v1/queues/q", "{}").statusCode()).isBetween(200, 299);
    assertThat(send("POST", "/v1/queues/q/messages", "{\"body\":\"a\"}").statusCode())
        .isBetween(200, 299);
    HttpResponse<String> got = send("POST", "/v1/queues/q/receive", "{\"max\":1}");
    String lease = JSON.readTree(got.body()).path("messages").get(0).path("lease_id").asText();
    gate.close();
    int syncsBefore = gate.calls();

    HttpResponse<String> ack =
        send("POST", "/v1/queues/q/ack", "{\"lease_id\":\"" + lease + "\"}");

    assertThat(ack.statusCode()).isEqualTo(200);
    JsonNode result = JSON.readTree(ack.body()).path("results").get(0);
    assertThat(result.path("outcome").asText()).isEqualTo("acked");
    // Its fsync was asked for and is the one held: the answer did not wait for it.
    gate.awaitHeld(1);
    assertThat(gate.calls()).isGreaterThan(syncsBefore);

    CompletableFuture<HttpResponse<String>> publishing =
        client.sendAsync(request("POST", "/v1/queues/q/messages", "{\"body\":\"b\"}"),
            HttpResponse.BodyHandlers.ofString());
    assertThat(publishing).isNotDone();
    gate.open();
    assertThat(publishing.get(5, TimeUnit.SECONDS).statusCode()).isBetween(200, 299);

    // After a restart the acked message is gone and only the second one is there.
    served.close();
    serve(new SqliteStore(dir.resolve("wharf.db")));
    JsonNode left =
        JSON.readTree(send("POST", "/v1/queues/q/receive", "{\"max\":10}").body())
            .path("messages");
    assertThat(left).hasSize(1);
    assertThat(left.get(0).path("body").asText()).isEqualTo("b");
  }

  @Test
  void aFailedFsyncRefusesWritesAndFailsLivenessUntilARestart() throws Exception {
    assertThat(send("PUT", "/v1/queues/q", "{}").statusCode()).isBetween(200, 299);
    assertThat(send("GET", "/healthz", "").statusCode()).isEqualTo(200);
    gate.failNext();
    assertThat(send("POST", "/v1/queues/q/messages", "{\"body\":\"a\"}").statusCode())
        .isEqualTo(503);

    HttpResponse<String> publish = send("POST", "/v1/queues/q/messages", "{\"body\":\"b\"}");
    HttpResponse<String> health = send("GET", "/healthz", "");
    HttpResponse<String> ready = send("GET", "/readyz", "");

    assertThat(publish.statusCode()).isEqualTo(503);
    assertThat(JSON.readTree(publish.body()).path("detail").asText())
        .contains("until the server restarts");
    assertThat(health.statusCode()).isEqualTo(503);
    assertThat(JSON.readTree(health.body()).path("code").asText()).isEqualTo("unavailable");
    assertThat(JSON.readTree(health.body()).path("detail").asText()).contains("fsync failed");
    assertThat(ready.statusCode()).isEqualTo(503);
    // Reads still answer.
    assertThat(send("GET", "/v1/queues/q", "").statusCode()).isEqualTo(200);
  }

  private void serve(SqliteStore s) {
    served = ServedStore.serve(s);
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return client.send(request(method, path, body), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(String method, String path, String body) {
    return served.request(method, path, body);
  }
}
