package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.app.WharfApp;
import dev.wharf.config.ConfigLoader;
import dev.wharf.config.WharfConfig;
import dev.wharf.core.Publish;
import dev.wharf.store.Delivery;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client commands against a real Wharf (SQLite in a temp dir, ephemeral port). */
class CliServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dir;
  private static WharfApp app;
  private static Path clientConfig;

  @BeforeAll
  static void start() throws Exception {
    String yaml =
        """
        server:
          port: 0
        storage:
          path: %s
        auth:
          admin_token: adm
        queues:
          billing:
            max_attempts: 3
          jobs:
            dead_letter_queue: ""
        """
            .formatted(dir.resolve("nested/dir/wharf.db"));
    WharfConfig config = new ConfigLoader(Map.of()).parse(yaml, "test");
    app = WharfApp.start(config);
    // The client reads the same kind of file, pointed at the port the server got.
    clientConfig = dir.resolve("client.yaml");
    Files.writeString(
        clientConfig, "server:\n  port: " + app.port() + "\nauth:\n  admin_token: adm\n");
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  @BeforeEach
  void empty() {
    app.broker().purge("billing");
    app.broker().purge("jobs");
  }

  private CliRun wharf(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "-c";
    all[args.length + 1] = clientConfig.toString();
    return CliRun.run(Map.of(), "", all);
  }

  private String publish(String... args) throws Exception {
    String[] all = new String[args.length + 2];
    all[0] = "publish";
    all[1] = "billing";
    System.arraycopy(args, 0, all, 2, args.length);
    CliRun r = wharf(append(all, "--json"));
    assertThat(r.exitCode()).as(r.err()).isZero();
    return JSON.readTree(r.out()).get("id").asText();
  }

  private static String[] append(String[] a, String s) {
    String[] out = java.util.Arrays.copyOf(a, a.length + 1);
    out[a.length] = s;
    return out;
  }

  /**
   * A client command reads only where the server is and its token: a storage password from a
   * variable this shell lacks, or a misspelt queue key, is the server's business, not its.
   */
  @Test
  void aClientCommandReadsOnlyServerAndAuthOfItsConfig() throws Exception {
    Path full = dir.resolve("full.yaml");
    Files.writeString(full, "server:\n  port: " + app.port() + "\nauth:\n  admin_token: adm\n"
        + "storage:\n  kind: postgres\n  url: jdbc:postgresql://db/w\n  password: ${PGPASS}\n"
        + "queues:\n  a:\n    max_attemps: 3\n");
    CliRun r = CliRun.run(Map.of(), "", "queues", "list", "-c", full.toString());
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("billing");
    // An error where the client looks is still one.
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "server:\n  port: nope\n");
    CliRun refused = CliRun.run(Map.of(), "", "queues", "list", "-c", bad.toString());
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.err()).contains("server.port");
  }

  /** An empty WHARF_URL or WHARF_TOKEN is unset, as ${VAR:-default} reads one in a config. */
  @Test
  void emptyUrlAndTokenVariablesAreUnset() {
    CliRun r = CliRun.run(Map.of("WHARF_URL", "", "WHARF_TOKEN", ""), "", "queues", "list",
        "-c", clientConfig.toString());
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("billing");
  }

  @Test
  void startCreatedTheDatabaseDirectoryAndConfiguredQueues() {
    assertThat(dir.resolve("nested/dir/wharf.db")).exists();
    assertThat(app.broker().queueNames()).contains("billing", "jobs");
    assertThat(app.broker().settings("billing").maxAttempts()).isEqualTo(3);
    assertThat(app.broker().settings("jobs").deadLetterQueue()).isNull();
    assertThat(app.startLine())
        .startsWith("wharf listening on http://127.0.0.1:" + app.port() + ", storage sqlite /")
        .contains("nested/dir/wharf.db");
  }

  @Test
  void listShowsQueuesWithCounts() throws Exception {
    publish("--data", "{\"n\":1}");
    publish("--data", "{\"n\":2}");
    CliRun r = wharf("queues", "list");
    assertThat(r.exitCode()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).matches("QUEUE +READY +DELAYED +LEASED +EXPIRED +DEAD +DLQ");
    assertThat(lines).anyMatch(l -> l.matches("billing +2 +0 +0 +0 +0 +billing\\.dlq"));
    assertThat(lines).anyMatch(l -> l.matches("jobs +0 +0 +0 +0 +0 +-"));

    CliRun json = wharf("queues", "list", "--json");
    JsonNode queues = JSON.readTree(json.out()).get("queues");
    assertThat(queues.findValuesAsText("name")).contains("billing", "jobs");
  }

  @Test
  void publishOptionsReachTheMessage() throws Exception {
    CliRun r =
        wharf(
            "publish",
            "billing",
            "--data",
            "{\"invoice\":42}",
            "--header",
            "x-source=cli",
            "--header",
            "x-sig=v1=abc",
            "--key",
            "inv-42",
            "--idempotency-key",
            "evt-1");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).matches("published \\S+ to billing\\n");
    CliRun again = wharf("publish", "billing", "--data", "{}", "--idempotency-key", "evt-1");
    assertThat(again.out()).contains("(duplicate of an earlier publish)");

    CliRun peek = wharf("queues", "peek", "billing");
    assertThat(peek.exitCode()).as(peek.err()).isZero();
    assertThat(peek.out())
        .contains("state:          ready")
        .contains("key:            inv-42")
        .contains("  x-source: cli")
        .contains("  x-sig: v1=abc")
        .contains("\"invoice\": 42");
    CliRun delayed = wharf("publish", "billing", "--text", "later", "--delay", "1h");
    assertThat(delayed.exitCode()).isZero();
    // Sent as written, so the server answers with the field's range.
    CliRun tooLate =
        wharf("publish", "billing", "--text", "x", "--delay", "9999999999999999999999s");
    assertThat(tooLate.exitCode()).isNotZero();
    assertThat(tooLate.err())
        .contains("delay must be between 0s and 30d, got more than 1000000000d");
    JsonNode browse = JSON.readTree(wharf("queues", "inspect", "billing", "--json").out());
    assertThat(browse.path("queue").path("stats").path("delayed").asInt()).isEqualTo(1);
  }

  @Test
  void headerNamesDifferingInCaseAreTwoHeadersAsTheApiStoresThem() throws Exception {
    CliRun r =
        wharf("publish", "billing", "--text", "x", "--header", "X-Id=1", "--header", "x-id=2");
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode m =
        JSON.readTree(wharf("queues", "peek", "billing", "--json").out()).path("messages").get(0);
    assertThat(JSON.convertValue(m.path("headers"), Map.class))
        .isEqualTo(Map.of("X-Id", "1", "x-id", "2"));
  }

  @Test
  void publishReadsStdinAsJsonOrText() throws Exception {
    CliRun text =
        CliRun.run(Map.of(), "plain words\n", "publish", "billing", "-c", clientConfig.toString());
    assertThat(text.exitCode()).as(text.err()).isZero();
    CliRun json =
        CliRun.run(Map.of(), "{\"a\": [1]}", "publish", "billing", "-c", clientConfig.toString());
    assertThat(json.exitCode()).as(json.err()).isZero();
    JsonNode messages =
        JSON.readTree(wharf("queues", "inspect", "billing", "--json").out()).get("messages");
    assertThat(messages.get(0).get("content_type").asText()).isEqualTo("text");
    assertThat(messages.get(0).get("body").asText()).isEqualTo("plain words\n");
    assertThat(messages.get(1).get("content_type").asText()).isEqualTo("json");
    assertThat(messages.get(1).get("body").toString()).isEqualTo("{\"a\":[1]}");
  }

  /** An empty pipe publishes nothing; a byte-order mark is not content; metadata goes along. */
  @Test
  void publishRefusesEmptyInputDropsAByteOrderMarkAndSendsMetadata() throws Exception {
    CliRun empty = CliRun.run(Map.of(), "", "publish", "billing", "-c", clientConfig.toString());
    assertThat(empty.exitCode()).isEqualTo(1);
    assertThat(empty.err()).isEqualTo(
        "wharf: stdin is empty: nothing to publish (an empty text message is --text '')\n");
    CliRun onlyMark = CliRun.run(Map.of(), "\ufeff", "publish", "billing", "-c",
        clientConfig.toString());
    assertThat(onlyMark.exitCode()).isEqualTo(1);
    assertThat(app.broker().stats("billing").counts().ready()).isZero();

    CliRun bom = CliRun.run(Map.of(), "\ufeff{\"b\": 2}", "publish", "billing",
        "--metadata", "{\"tenant\": \"t1\"}", "-c", clientConfig.toString());
    assertThat(bom.exitCode()).as(bom.err()).isZero();
    JsonNode m =
        JSON.readTree(wharf("queues", "inspect", "billing", "--json").out()).get("messages").get(0);
    assertThat(m.get("content_type").asText()).isEqualTo("json");
    assertThat(m.get("body").toString()).isEqualTo("{\"b\":2}");
    assertThat(m.get("metadata").toString()).isEqualTo("{\"tenant\":\"t1\"}");

    CliRun badMeta = wharf("publish", "billing", "--text", "x", "--metadata", "{nope");
    assertThat(badMeta.exitCode()).isEqualTo(1);
    assertThat(badMeta.err()).startsWith("wharf: --metadata is not valid JSON");
  }

  @Test
  void inspectShowsSettingsStatsAndMessages() throws Exception {
    String id = publish("--data", "{\"n\":1}");
    publish("--text", "two");
    publish("--text", "three");
    CliRun r = wharf("queues", "inspect", "billing", "--limit", "2");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out())
        .startsWith("queue billing\n")
        .containsPattern("max_attempts +3")
        .containsPattern("ready +3")
        .containsPattern(id + " +ready +0 +\\S+ +\\{\"n\":1\\}")
        .contains("two")
        .doesNotContain("three");
  }

  @Test
  void deadLettersAreListedRetriedAndDrained() throws Exception {
    String id = publish("--data", "{\"n\":1}");
    publish("--data", "{\"n\":2}");
    List<Delivery> got = app.broker().receive("billing", 2, Duration.ZERO, null);
    app.broker()
        .settle()
        .dead("billing", got.stream().map(Delivery::leaseId).toList(), "bad invoice");

    CliRun dlq = wharf("queues", "dlq", "billing");
    assertThat(dlq.exitCode()).as(dlq.err()).isZero();
    assertThat(dlq.out()).containsPattern(id + " +\\S+ +bad invoice +\\{\"n\":1\\}");
    assertThat(JSON.readTree(wharf("queues", "dlq", "billing", "--json").out()).get("messages"))
        .hasSize(2);

    CliRun one = wharf("queues", "retry", "billing", "--id", id, "--id", "0NOSUCH");
    assertThat(one.exitCode()).as(one.err()).isZero();
    assertThat(one.out())
        .isEqualTo(
            "moved 1 dead message back to billing\n"
                + "skipped \"0NOSUCH\": no dead message of billing has that id\n");
    // Nothing named moved: a script must be able to tell.
    CliRun none = wharf("queues", "retry", "billing", "--id", "0NOSUCH");
    assertThat(none.exitCode()).isEqualTo(1);
    assertThat(none.out()).startsWith("moved 0 dead messages back to billing\n");
    assertThat(none.err()).contains("none of the ids named is a dead message of billing");
    CliRun rest = wharf("queues", "retry", "billing");
    assertThat(rest.out()).isEqualTo("moved 1 dead message back to billing\n");
    assertThat(wharf("queues", "dlq", "billing").out())
        .isEqualTo("no dead messages from billing\n");

    CliRun drain = wharf("queues", "drain", "billing", "--force");
    assertThat(drain.out()).isEqualTo("deleted 2 messages from billing\n");
    assertThat(wharf("queues", "peek", "billing").out()).isEqualTo("no ready message in billing\n");
  }

  @Test
  void anEmptyDeadLetterListSaysWhenTheQueueHasNoDeadLetterQueue() {
    CliRun r = wharf("queues", "dlq", "jobs");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out())
        .matches(
            "no dead messages from jobs: jobs has no dead-letter queue, so its dead messages are"
                + " dropped \\(\\d+ since the server started\\)\n");
    // A queue with a DLQ that holds none of its messages: nothing more to say.
    assertThat(wharf("queues", "dlq", "billing").out())
        .isEqualTo("no dead messages from billing\n");
  }

  @Test
  void controlCharactersFromMessagesReachTheTerminalOnlyAsEscapes() throws Exception {
    publish("--text", "hi\u001b[31mRED\u0007 \u202eevil\tend");
    List<Delivery> got = app.broker().receive("billing", 1, Duration.ZERO, null);
    app.broker().settle().dead("billing", List.of(got.get(0).leaseId()), "x\u001b[2Jy\u0001");

    CliRun dlq = wharf("queues", "dlq", "billing");
    assertThat(dlq.exitCode()).as(dlq.err()).isZero();
    assertThat(dlq.out())
        .contains("x\\u001b[2Jy\\u0001")
        .contains("hi\\u001b[31mRED\\u0007 \\u202eevil end");
    app.broker().redrive("billing", null);
    CliRun peek = wharf("queues", "peek", "billing");
    assertThat(peek.out()).contains("  hi\\u001b[31mRED\\u0007 \\u202eevil\tend");
    for (CliRun r : List.of(dlq, peek, wharf("queues", "inspect", "billing"))) {
      assertThat(r.out().chars().filter(c -> c < 0x20 && c != '\n' && c != '\t' || c == 0x202e))
          .as(r.out())
          .isEmpty();
    }
  }

  /** What the server stored for the queue's messages, oldest first. */
  private static List<String> storedBodies() {
    return app.broker().browse("billing", null, null, 0, 100).stream()
        .map(m -> new String(m.payload(), StandardCharsets.UTF_8))
        .toList();
  }

  private static final String EXACT =
      "{\"price\": 7.50, \"e\": 1E+2, \"big\": 12345678901234567890123,"
          + " \"tiny\": 0.1000000000000000055511151231257827, \"x\": 1e999999}";

  @Test
  void publishSendsJsonExactlyAsWritten() throws Exception {
    assertThat(wharf("publish", "billing", "--data", EXACT).exitCode()).isZero();
    CliRun stdin =
        CliRun.run(
            Map.of(), "{\"price\": 7.50, \"x\":1e999999}\n", "publish", "billing", "-c",
            clientConfig.toString());
    assertThat(stdin.exitCode()).as(stdin.err()).isZero();
    Path file = dir.resolve("body.json");
    Files.writeString(file, "[1.0, -0.0, 2e-3]");
    assertThat(wharf("publish", "billing", "--file", file.toString()).exitCode()).isZero();
    assertThat(storedBodies())
        .containsExactly(EXACT, "{\"price\": 7.50, \"x\":1e999999}", "[1.0, -0.0, 2e-3]");
  }

  @Test
  void publishRefusesMoreThanOneJsonValue() {
    CliRun r = wharf("publish", "billing", "--data", "{} {}");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("wharf: --data is not valid JSON: {} {}\n");
    assertThat(storedBodies()).isEmpty();
  }

  @Test
  void jsonAnswersAndBodiesShowTheStoredText() throws Exception {
    app.broker().publish("billing", List.of(Publish.json(EXACT)));
    CliRun peekJson = wharf("queues", "peek", "billing", "--json");
    assertThat(peekJson.exitCode()).as(peekJson.err()).isZero();
    assertThat(peekJson.out()).contains("\"body\":" + EXACT);
    JsonNode parsed = JSON.readTree(peekJson.out());
    assertThat(parsed.path("messages").get(0).path("content_type").asText()).isEqualTo("json");

    CliRun inspectJson = wharf("queues", "inspect", "billing", "--json");
    assertThat(inspectJson.out()).contains("\"body\":" + EXACT);
    JsonNode both = JSON.readTree(inspectJson.out());
    assertThat(both.path("queue").path("name").asText()).isEqualTo("billing");
    assertThat(both.path("messages")).hasSize(1);

    CliRun table = wharf("queues", "inspect", "billing");
    assertThat(table.out()).contains("{\"price\": 7.50, \"e\": 1E+2, \"big\": 1234567890123");

    CliRun peek = wharf("queues", "peek", "billing");
    assertThat(peek.out())
        .contains("    \"price\": 7.50,\n")
        .contains("    \"e\": 1E+2,\n")
        .contains("    \"tiny\": 0.1000000000000000055511151231257827,\n")
        .contains("    \"x\": 1e999999\n");

    List<Delivery> got = app.broker().receive("billing", 1, Duration.ZERO, null);
    app.broker().settle().dead("billing", List.of(got.get(0).leaseId()), "bad price");
    assertThat(wharf("queues", "dlq", "billing").out()).contains("bad price  {\"price\": 7.50, ");
    assertThat(wharf("queues", "dlq", "billing", "--json").out()).contains(EXACT);
    app.broker().purge("billing.dlq");
  }

  @Test
  void serverErrorsPrintCodeAndDetailAndExit1() {
    CliRun missing = wharf("queues", "inspect", "nope");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err()).startsWith("wharf: server answered 404 queue_not_found: ");

    CliRun badToken = wharf("queues", "list", "--token", "wrong");
    assertThat(badToken.exitCode()).isEqualTo(1);
    assertThat(badToken.err())
        .isEqualTo(
            "wharf: server answered 401 unauthorized: the bearer token is not accepted (the token"
                + " sent came from --token, $WHARF_TOKEN or the config's auth.admin_token)\n");
  }

  @Test
  void anHttpsUrlForTheServerSaysItAnswersPlainHttp() {
    String https = "https://127.0.0.1:" + app.port();
    CliRun r = CliRun.run(Map.of(), "", "queues", "list", "--url", https, "--token", "adm");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .startsWith("wharf: cannot reach the server at " + https + " (TLS failed: ")
        .endsWith(" — the server there answers plain HTTP, as 'wharf serve' does: use http://\n");
  }

  @Test
  void aMissingTokenIsToldWithTheWaysToGiveOne() {
    CliRun r =
        CliRun.run(Map.of(), "", "queues", "list", "--url", "http://127.0.0.1:" + app.port());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err())
        .isEqualTo(
            "wharf: server answered 401 unauthorized: a bearer token is required (no token was"
                + " sent: give one with --token or $WHARF_TOKEN, or name the config that holds"
                + " auth.admin_token with -c)\n");
  }
}
