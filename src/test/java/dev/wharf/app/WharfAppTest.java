package dev.wharf.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.config.ConfigLoader;
import dev.wharf.config.StorageConfig;
import dev.wharf.config.WharfConfig;
import dev.wharf.testing.RawHttp;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WharfAppTest {
  @TempDir Path dir;

  private WharfConfig config(String yaml) {
    return new ConfigLoader(Map.of()).parse(yaml, "test");
  }

  @Test
  void startsServesAndKeepsDataAcrossRestarts() throws Exception {
    WharfConfig cfg =
        config(
            "server: {port: 0}\nstorage: {path: '" + dir.resolve("w.db") + "'}\nqueues: {q: {}}\n");
    HttpClient client = HttpClient.newHttpClient();
    try (WharfApp app = WharfApp.start(cfg)) {
      HttpResponse<String> health =
          client.send(
              HttpRequest.newBuilder(URI.create(app.url() + "/healthz")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      app.broker().publish("q", java.util.List.of(dev.wharf.core.Publish.json("{\"a\":1}")));
    }
    try (WharfApp again = WharfApp.start(cfg)) {
      assertThat(again.broker().stats("q").counts().ready()).isEqualTo(1);
    }
  }

  /**
   * A queue made and tuned through the API, then given an entry in the file: the entry sets what
   * it names and nothing else, so the tokens the API gave it are not dropped to the defaults.
   */
  @Test
  void aFileEntryForAQueueMadeThroughTheApiSetsOnlyWhatItNames() throws Exception {
    String storage = "storage: {path: '" + dir.resolve("f.db") + "'}\n";
    HttpClient client = HttpClient.newHttpClient();
    try (WharfApp app = WharfApp.start(config("server: {port: 0}\n" + storage))) {
      assertThat(send(client, app, "PUT", "/v1/queues/apiq",
          "{\"consumer_tokens\": [\"secret-tok\"], \"max_attempts\": 9, \"delay\": \"2s\"}")
          .statusCode()).isEqualTo(201);
    }
    try (WharfApp app = WharfApp.start(config("server: {port: 0}\n" + storage
        + "queues: {apiq: {}}\n"))) {
      var s = app.broker().settings("apiq");
      assertThat(s.consumerTokens()).containsExactly("secret-tok");
      assertThat(s.maxAttempts()).isEqualTo(9);
    }
    // A key the entry names is set; the others keep what the API made them.
    try (WharfApp app = WharfApp.start(config("server: {port: 0}\n" + storage
        + "queues: {apiq: {max_attempts: 3}}\n"))) {
      var s = app.broker().settings("apiq");
      assertThat(s.maxAttempts()).isEqualTo(3);
      assertThat(s.consumerTokens()).containsExactly("secret-tok");
      assertThat(s.delay()).hasSeconds(2);
    }
    // Named settings that do not go with the stored ones stop the start, saying which.
    assertThatThrownBy(() -> WharfApp.start(config("server: {port: 0}\n" + storage
        + "queues: {apiq: {max_attempts: 4, ttl: 1s}}\n")))
        .isInstanceOf(StartupException.class)
        .hasMessageContaining("queue apiq")
        .hasMessageContaining("ttl");
    // Writing a key out clears it, or sets the default, though the defaults-filled entry is the
    // same as before: the entry named something new.
    try (WharfApp app = WharfApp.start(config("server: {port: 0}\n" + storage
        + "queues: {apiq: {max_attempts: 3, consumer_tokens: []}}\n"))) {
      assertThat(app.broker().settings("apiq").consumerTokens()).isEmpty();
    }
    try (WharfApp app = WharfApp.start(config("server: {port: 0}\n" + storage
        + "queues: {apiq: {max_attempts: 3, consumer_tokens: [], delay: 0s}}\n"))) {
      assertThat(app.broker().settings("apiq").delay()).isZero();
    }
  }

  @Test
  void aHostThatDoesNotResolveIsSaidSo() {
    WharfConfig cfg =
        config(
            "server: {host: 'no-such-host.invalid', port: 0}\nstorage: {path: '"
                + dir.resolve("h.db")
                + "'}\n");
    assertThatThrownBy(() -> WharfApp.start(cfg))
        .isInstanceOf(StartupException.class)
        .hasMessage("cannot listen on no-such-host.invalid:0: the host no-such-host.invalid does"
            + " not resolve");
  }

  @Test
  void metricsShowTheStoresCommitsAndFsyncs() throws Exception {
    WharfConfig cfg =
        config("server: {port: 0}\nstorage: {path: '" + dir.resolve("m.db") + "'}\n");
    HttpClient client = HttpClient.newHttpClient();
    try (WharfApp app = WharfApp.start(cfg)) {
      assertThat(send(client, app, "PUT", "/v1/queues/m", "{}").statusCode()).isEqualTo(201);
      assertThat(send(client, app, "POST", "/v1/queues/m/messages", "{\"body\": 1}").statusCode())
          .isEqualTo(201);
      String metrics = send(client, app, "GET", "/metrics", null).body();
      // The publish committed and was fsynced before it was answered.
      assertThat(sample(metrics, "wharf_sqlite_commits_total")).isPositive();
      assertThat(sample(metrics, "wharf_sqlite_wal_fsync_seconds_count")).isPositive();
      assertThat(sample(metrics, "wharf_sqlite_wal_fsync_seconds_sum")).isPositive();
      // A histogram, with buckets fine enough for a disk that syncs in a fraction of a millisecond.
      assertThat(metrics)
          .contains("wharf_sqlite_wal_fsync_seconds_bucket{le=\"1.0E-4\"}")
          .contains("wharf_sqlite_wal_fsync_seconds_bucket{le=\"0.5\"}");
      assertThat(sample(metrics, "wharf_sqlite_wal_fsync_seconds_bucket{le=\"+Inf\"}"))
          .isEqualTo(sample(metrics, "wharf_sqlite_wal_fsync_seconds_count"));
      // Where a write's time went: waiting for the writer, in its batch, then for the disk.
      assertThat(sample(metrics, "wharf_sqlite_write_queued_seconds_count")).isPositive();
      assertThat(sample(metrics, "wharf_sqlite_batch_seconds_count")).isPositive();
      assertThat(sample(metrics, "wharf_sqlite_batch_durable_seconds_count")).isPositive();
      assertThat(metrics).contains("wharf_sqlite_batch_durable_seconds_bucket{le=\"1.0E-4\"}");
      assertThat(sample(metrics, "wharf_sqlite_wal_restart_seconds_count")).isZero();
      assertThat(metrics)
          .contains("wharf_sqlite_checkpoint_pass_seconds_count")
          .contains("wharf_sqlite_db_fsync_seconds_count")
          .contains("wharf_sqlite_wal_frames")
          .contains("wharf_sqlite_checkpoint_owed_bytes");
    }
  }

  private static HttpResponse<String> send(
      HttpClient client, WharfApp app, String method, String path, String body) throws Exception {
    HttpRequest.BodyPublisher content =
        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body);
    return client.send(
        HttpRequest.newBuilder(URI.create(app.url() + path)).method(method, content).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The value of an unlabelled sample in Prometheus text. */
  private static double sample(String text, String name) {
    return text.lines()
        .filter(l -> l.startsWith(name + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(name.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no sample " + name + " in:\n" + text));
  }

  /**
   * One edit moves a queue off its DLQ and changes the DLQ's own entry: the DLQ keeps the tokens
   * it takes from the queue and its own, whichever entry comes first in the file.
   */
  @Test
  void aDlqsEntryIsAppliedBeforeTheQueueThatLeavesIt() throws Exception {
    String storage = "server: {port: 0}\nstorage: {path: '" + dir.resolve("d.db") + "'}\n";
    try (WharfApp app =
        WharfApp.start(
            config(
                storage
                    + "queues:\n  pay: {consumer_tokens: [p4y], dead_letter_queue: pay.dlq}\n"
                    + "  pay.dlq: {consumer_tokens: [ops]}\n"))) {
      assertThat(app.broker().consumerTokens("pay.dlq")).containsExactlyInAnyOrder("ops", "p4y");
    }
    try (WharfApp app =
        WharfApp.start(
            config(
                storage
                    + "queues:\n  pay: {consumer_tokens: [p4y], dead_letter_queue: pay.dlq2}\n"
                    + "  pay.dlq: {consumer_tokens: [ops], visibility_timeout: 40s}\n"))) {
      assertThat(app.broker().consumerTokens("pay.dlq")).containsExactly("ops", "p4y");
    }
  }

  @Test
  void theConfiguredTransportServesAndTheStartLineNamesIt() throws Exception {
    WharfConfig cfg =
        config(
            "server: {port: 0, transport: nio}\nstorage: {path: '"
                + dir.resolve("t.db")
                + "'}\n");
    HttpClient client = HttpClient.newHttpClient();
    try (WharfApp app = WharfApp.start(cfg)) {
      assertThat(send(client, app, "PUT", "/v1/queues/t", "{}").statusCode()).isEqualTo(201);
      assertThat(app.startLine())
          .endsWith(", transport nio, management from loopback only (no admin token)");
    }
    WharfConfig guarded =
        config(
            "server: {port: 0, transport: nio}\nstorage: {path: '"
                + dir.resolve("t.db")
                + "'}\nauth: {admin_token: s3cret}\n");
    try (WharfApp app = WharfApp.start(guarded)) {
      assertThat(app.startLine())
          .endsWith(", transport nio, management by admin token")
          .doesNotContain("s3cret");
    }
  }

  @Test
  void aBusyPortIsAClearStartupErrorAndReleasesTheStore() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      WharfConfig cfg =
          config("server: {port: " + port + "}\nstorage: {path: '" + dir.resolve("b.db") + "'}\n");
      assertThatThrownBy(() -> WharfApp.start(cfg))
          .isInstanceOf(StartupException.class)
          .hasMessageStartingWith("cannot listen on 127.0.0.1:" + port + ": the address is in use");
    }
    // The store was closed on the way out: the same file opens again.
    try (WharfApp app =
        WharfApp.start(
            config("server: {port: 0}\nstorage: {path: '" + dir.resolve("b.db") + "'}\n"))) {
      assertThat(app.port()).isPositive();
    }
  }

  @Test
  void aStopAnswersParkedReceivesAndEndsStreamsBeforeTheConnectionsClose() throws Exception {
    WharfConfig cfg =
        config(
            "server: {port: 0, sse_keepalive: 25s}\nstorage: {path: '"
                + dir.resolve("s.db")
                + "'}\nqueues: {q: {}, busy: {}}\n");
    String streamed;
    String polled;
    try (WharfApp app = WharfApp.start(cfg);
        Socket poll = RawHttp.connect(app.port());
        Socket stream = RawHttp.connect(app.port())) {
      app.broker().publish("busy", List.of(dev.wharf.core.Publish.json("{\"a\":1}")));
      // The stream leases the message, writes it, and parks for the next one.
      RawHttp.write(
          stream,
          "GET /v1/queues/busy/stream?visibility_timeout=5m HTTP/1.1\r\nHost: t\r\n\r\n");
      String opened = RawHttp.readUntil(stream, "event: message\n");
      String body = "{\"wait\": \"25s\"}";
      RawHttp.write(
          poll,
          "POST /v1/queues/q/receive HTTP/1.1\r\nHost: t\r\nContent-Length: "
              + body.length()
              + "\r\n\r\n"
              + body);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (app.broker().waitingConsumers() < 2 && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      assertThat(app.broker().waitingConsumers()).isEqualTo(2);
      app.close();
      polled = RawHttp.readAll(poll);
      streamed = opened + RawHttp.readAll(stream);
    }
    assertThat(polled).startsWith("HTTP/1.1 200 ").endsWith("\r\n\r\n{\"messages\":[]}");
    assertThat(streamed)
        .startsWith("HTTP/1.1 200 ")
        .contains("event: message\n")
        .endsWith("event: error\ndata: the server is stopping\n\n\r\n0\r\n\r\n");
    try (WharfApp again = WharfApp.start(cfg)) {
      // The streamed message keeps its lease; the answered receive took none.
      assertThat(again.broker().stats("busy").counts().leased()).isEqualTo(1);
      assertThat(again.broker().stats("q").counts().leased()).isZero();
    }
  }

  @Test
  void postgresStorageIsThePostgresStore() {
    try (var store =
        StoreFactory.create(new StorageConfig.Postgres("jdbc:postgresql://x/y", "u", "p", 5))) {
      assertThat(store).isInstanceOf(dev.wharf.store.postgres.PostgresStore.class);
    }
  }
}
