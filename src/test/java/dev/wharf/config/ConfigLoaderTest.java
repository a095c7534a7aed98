package dev.wharf.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.core.QueueSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  private final ConfigLoader loader = new ConfigLoader(Map.of("TOKEN", "t0k", "EMPTY", ""));

  private WharfConfig parse(String yaml) {
    return loader.parse(yaml, "wharf.yaml");
  }

  private List<String> errors(String yaml) {
    try {
      parse(yaml);
    } catch (ConfigException e) {
      return e.errors();
    }
    throw new AssertionError("expected the config to be rejected");
  }

  @Test
  void unquotedTokensAndNamesAreReadAsWritten() {
    WharfConfig c =
        parse(
            """
            auth: {admin_token: 0755}
            server: {port: 9090}
            queues:
              a: {consumer_tokens: [00123456, 0x1F, 1.50, 1e3, 1_000, 42]}
              b: {consumer_tokens: 12345, dead_letter_queue: 6}
            """);
    assertThat(c.auth().adminToken()).isEqualTo("0755");
    assertThat(c.server().port()).isEqualTo(9090);
    assertThat(c.queues().get("a").settings().consumerTokens())
        .containsExactly("00123456", "0x1F", "1.50", "1e3", "1_000", "42");
    assertThat(c.queues().get("b").settings().consumerTokens()).containsExactly("12345");
    assertThat(c.queues().get("b").settings().deadLetterQueue()).isEqualTo("6");
  }

  @Test
  void yesNoOnOffAreWordsNotBooleans() {
    WharfConfig c =
        parse(
            """
            auth: {admin_token: yes, require_tokens: true}
            queues:
              a: {consumer_tokens: [on, Off, NO], dead_letter_queue: no}
              b: {dead_letter_queue: false}
            """);
    assertThat(c.auth().adminToken()).isEqualTo("yes");
    assertThat(c.queues().get("a").settings().consumerTokens()).containsExactly("on", "Off", "NO");
    assertThat(c.queues().get("a").settings().deadLetterQueue()).isEqualTo("no");
    assertThat(c.queues().get("b").settings().deadLetterQueue()).isNull();
    assertThat(errors("auth: {require_tokens: yes}\n"))
        .containsExactly("auth.require_tokens: expected true or false, got \"yes\"");
  }

  @Test
  void yamlAliasesAndASecondDocumentAreRefusedByPath() {
    assertThat(
            errors(
                """
                queues:
                  a: {consumer_tokens: [&tok s3cret]}
                  b: {consumer_tokens: [*tok], dead_letter_queue: *tok}
                """))
        .containsExactlyInAnyOrder(
            "queues.b.consumer_tokens[0]: YAML aliases (*tok) are not supported: write the value"
                + " out",
            "queues.b.dead_letter_queue: YAML aliases (*tok) are not supported: write the value"
                + " out");
    assertThat(errors("server: {port: 1}\n---\nserver: {port: 2}\n"))
        .containsExactly(
            "wharf.yaml: line 3: a second YAML document (after ---) is not read; a config file"
                + " holds one");
  }

  @Test
  void emptyFileGivesDefaults() {
    WharfConfig c = parse("");
    assertThat(c).isEqualTo(WharfConfig.defaults());
    assertThat(c.server().host()).isEqualTo("127.0.0.1");
    assertThat(c.server().port()).isEqualTo(8080);
    assertThat(c.server().maxBodyBytes()).isEqualTo(1 << 20);
    assertThat(c.server().maxWait()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.server().maxWaiters()).isEqualTo(10_000);
    assertThat(c.server().maxPublishBatch()).isEqualTo(1000);
    assertThat(c.storage()).isEqualTo(new StorageConfig.Sqlite(Path.of("./data/wharf.db")));
    assertThat(c.auth()).isEqualTo(new AuthConfig(null, false));
    assertThat(c.httpSettings().port()).isEqualTo(8080);
    assertThat(c.brokerOptions()).isEqualTo(dev.wharf.core.BrokerOptions.defaults());
  }

  @Test
  void everyFieldIsRead() {
    WharfConfig c =
        parse(
            """
            server:
              host: 0.0.0.0
              port: 9090
              max_body: 512KB
              max_wait: 20s
              max_waiters: 50
              max_publish_batch: 10
              sse_keepalive: 5s
              idempotency_window: 1h
              expired_retention: 2d
              request_timeout: 10s
              idle_timeout: 2m
              max_connections: 3000
              transport: epoll
            storage:
              kind: sqlite
              path: /var/lib/wharf/w.db
            auth:
              admin_token: adm
              require_tokens: true
            sources:
              stripe:
                path: /webhook/stripe
            queues:
              billing:
                visibility_timeout: 60s
                max_visibility_timeout: 1h
                max_attempts: 3
                dead_letter_queue: billing-dead
                delay: 250ms
                ttl: 7d
                consumer_tokens: [a, b]
                api_key: c
                source: stripe
                events: [invoice.paid, invoice.payment_failed]
                filter: "$.data.object.amount_due >= 1000"
                idempotency_key: "$.id"
              plain:
            pull_api:
              max_batch: 10
            push:
              subscriptions: {}
            """);
    assertThat(c.server())
        .isEqualTo(
            new ServerConfig(
                "0.0.0.0",
                9090,
                512 * 1024,
                dev.wharf.http.HttpSettings.defaultBodyMemory(),
                Duration.ofSeconds(20),
                50,
                10,
                8L << 20,
                Duration.ofSeconds(5),
                Duration.ofHours(1),
                Duration.ofDays(2),
                Duration.ofSeconds(10),
                Duration.ofMinutes(2),
                3000,
                dev.wharf.http.server.Transport.EPOLL));
    assertThat(c.storage()).isEqualTo(new StorageConfig.Sqlite(Path.of("/var/lib/wharf/w.db")));
    assertThat(c.auth()).isEqualTo(new AuthConfig("adm", true));
    QueueConfig billing = c.queues().get("billing");
    assertThat(billing.settings())
        .isEqualTo(
            new QueueSettings(
                Duration.ofSeconds(60),
                Duration.ofHours(1),
                3,
                "billing-dead",
                Duration.ofMillis(250),
                Duration.ofDays(7),
                List.of("a", "b", "c")));
    assertThat(billing.ingest())
        .isEqualTo(
            new QueueIngest(
                "stripe",
                List.of("invoice.paid", "invoice.payment_failed"),
                "$.data.object.amount_due >= 1000",
                "$.id"));
    assertThat(c.queues().get("plain").settings()).isEqualTo(QueueSettings.defaultsFor("plain"));
    assertThat(c.queues().get("plain").ingest()).isEqualTo(QueueIngest.none());
    assertThat(c.queues().keySet()).containsExactly("billing", "plain");
    assertThat(c.sources()).containsOnlyKeys("stripe");
    assertThat(c.pullApi().get("max_batch").asInt()).isEqualTo(10);
    assertThat(c.push().has("subscriptions")).isTrue();
    assertThat(c.httpSettings())
        .isEqualTo(
            new dev.wharf.http.HttpSettings(
                "0.0.0.0",
                9090,
                512 * 1024,
                dev.wharf.http.HttpSettings.defaultBodyMemory(),
                "adm",
                true,
                Duration.ofSeconds(5),
                Duration.ofSeconds(10),
                Duration.ofMinutes(2),
                3000,
                dev.wharf.http.server.Transport.EPOLL));
    assertThat(c.brokerOptions().maxWait()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.brokerOptions().maxWaiters()).isEqualTo(50);
    assertThat(c.brokerOptions().maxPublishBatch()).isEqualTo(10);
    assertThat(c.brokerOptions().idempotencyWindow()).isEqualTo(Duration.ofHours(1));
    assertThat(c.brokerOptions().expiredRetention()).isEqualTo(Duration.ofDays(2));
  }

  @Test
  void sqlitePageSizeIsReadAndChecked() {
    assertThat(parse("storage:\n  path: w.db\n  page_size: 16384\n").storage())
        .isEqualTo(new StorageConfig.Sqlite(Path.of("w.db"), 16384));
    assertThat(errors("storage:\n  page_size: 3000\n"))
        .containsExactly("storage.page_size: must be a power of two, got 3000");
    assertThat(errors("storage:\n  page_size: 131072\n"))
        .containsExactly("storage.page_size: must be between 512 and 65536, got 131072");
    assertThat(errors("storage:\n  kind: postgres\n  url: jdbc:postgresql://x/y\n  page_size: 8192\n"))
        .containsExactly("storage.page_size: only used with kind: sqlite");
  }

  @Test
  void sqliteDiskFreeLimitIsReadAndChecked() {
    assertThat(parse("storage:\n  path: w.db\n").storage())
        .isEqualTo(new StorageConfig.Sqlite(Path.of("w.db"), 8192, 50L << 20));
    assertThat(parse("storage:\n  path: w.db\n  disk_free_limit: 1GB\n").storage())
        .isEqualTo(new StorageConfig.Sqlite(Path.of("w.db"), 8192, 1L << 30));
    assertThat(parse("storage:\n  path: w.db\n  disk_free_limit: 0\n").storage())
        .isEqualTo(new StorageConfig.Sqlite(Path.of("w.db"), 8192, 0));
    assertThat(errors("storage:\n  disk_free_limit: lots\n"))
        .containsExactly("storage.disk_free_limit: not a size: \"lots\"");
    assertThat(errors("storage:\n  disk_free_limit: 2000GB\n"))
        .containsExactly(
            "storage.disk_free_limit: must be between 0 (no limit) and 1024GB, got 2000GB");
    assertThat(errors(
            "storage:\n  kind: postgres\n  url: jdbc:postgresql://x/y\n  disk_free_limit: 1MB\n"))
        .containsExactly("storage.disk_free_limit: only used with kind: sqlite");
  }

  @Test
  void postgresStorageIsReadAndChecked() {
    WharfConfig c =
        parse(
            """
            storage:
              kind: postgres
              url: jdbc:postgresql://db:5432/wharf
              user: wharf
              password: ${TOKEN}
              pool: 20
            """);
    assertThat(c.storage())
        .isEqualTo(
            new StorageConfig.Postgres("jdbc:postgresql://db:5432/wharf", "wharf", "t0k", 20));
    assertThat(c.storage().toString()).doesNotContain("t0k");
    assertThat(errors("storage:\n  kind: postgres\n  path: x.db\n  pool: 0\n"))
        .containsExactly(
            "storage.url: required when kind is postgres",
            "storage.path: only used with kind: sqlite",
            "storage.pool: must be between 1 and 1000, got 0");
    assertThat(errors("storage:\n  kind: mysql\n  path: x.db\n"))
        .containsExactly("storage.kind: expected sqlite or postgres, got \"mysql\"");
    assertThat(errors("storage:\n  url: jdbc:postgresql://x/y\n"))
        .containsExactly("storage.url: only used with kind: postgres");
  }

  @Test
  void postgresStallTimeoutIsReadAndChecked() {
    String storage = "storage:\n  kind: postgres\n  url: jdbc:postgresql://db/w\n";
    assertThat(((StorageConfig.Postgres) parse(storage).storage()).stallTimeout())
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(((StorageConfig.Postgres) parse(storage + "  stall_timeout: 2500ms\n").storage())
        .stallTimeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(((StorageConfig.Postgres) parse(storage + "  stall_timeout: 1s\n").storage())
        .stallTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(errors(storage + "  stall_timeout: 50ms\n"))
        .containsExactly("storage.stall_timeout: must be between 1s and 1h, got 50ms");
    assertThat(errors(storage + "  stall_timeout: 999ms\n"))
        .containsExactly("storage.stall_timeout: must be between 1s and 1h, got 999ms");
    assertThat(errors(storage + "  stall_timeout: 2h\n"))
        .containsExactly("storage.stall_timeout: must be between 1s and 1h, got 2h");
    assertThat(errors("storage:\n  stall_timeout: 5s\n"))
        .containsExactly("storage.stall_timeout: only used with kind: postgres");
  }

  @Test
  void environmentIsInterpolatedWithDefaults() {
    WharfConfig c =
        parse(
            """
            server:
              port: ${PORT:-9999}
              host: ${EMPTY:-localhost}
            auth:
              admin_token: "pre-${TOKEN}-post"
              require_tokens: ${REQ:-true}
            storage:
              path: "$${NOT_A_VAR}/x.db"
            queues:
              q:
                api_key: ${TOKEN}
                consumer_tokens: ["${MISSING:-fallback}"]
            """);
    assertThat(c.server().port()).isEqualTo(9999);
    assertThat(c.server().host()).isEqualTo("localhost");
    assertThat(c.auth()).isEqualTo(new AuthConfig("pre-t0k-post", true));
    assertThat(c.storage()).isEqualTo(new StorageConfig.Sqlite(Path.of("${NOT_A_VAR}/x.db")));
    assertThat(c.queues().get("q").settings().consumerTokens()).containsExactly("fallback", "t0k");
  }

  @Test
  void emptyAdminTokenMeansNone() {
    assertThat(parse("auth:\n  admin_token: ${EMPTY}\n").auth().adminToken()).isNull();
  }

  @Test
  void tokensThatCouldNeverBePresentedAreErrors() {
    assertThat(
            errors(
                """
                auth:
                  admin_token: " padded"
                queues:
                  q:
                    consumer_tokens: ["ok", "trailing ", "x\\u0001", " y"]
                """))
        .containsExactlyInAnyOrder(
            "auth.admin_token: a token must not begin or end with a space (the header it is sent"
                + " in is trimmed)",
            "queues.q.consumer_tokens[1]: a token must not begin or end with a space (the header"
                + " it is sent in is trimmed)",
            "queues.q.consumer_tokens[2]: a token must not hold control characters (it is sent in a"
                + " header)",
            "queues.q.consumer_tokens[3]: a token must not begin or end with a space (the header"
                + " it is sent in is trimmed)");
  }

  @Test
  void everyErrorIsListedByPath() {
    List<String> errors =
        errors(
            """
            server:
              port: 70000
              max_body: lots
              max_wait: forever
              max_waiters: many
              host: [a]
              request_timeout: 1m
              idle_timeout: 30s
              max_connections: 0
              transport: kqueue
            auth:
              admin_token: ${NOPE}
              require_tokens: maybe
            queues:
              billing:
                visibility_timeout: 6o
                max_attempts: -1
                dead_letter_queue: [billing.dlq]
                ttl: true
                consumer_tokens: {a: b}
                events: [ok, [nested]]
                source: nowhere
              "bad name":
                delay: 40d
              other: 5
            sources: []
            pull_api: 3
            push: [x]
            """);
    assertThat(errors)
        .containsExactlyInAnyOrder(
            "auth.admin_token: environment variable NOPE is not set (use ${NOPE:-default})",
            "server.host: expected a string, got a list",
            "server.port: must be between 0 and 65535, got 70000",
            "server.max_body: not a size: \"lots\"",
            "server.max_wait: not a duration: \"forever\"",
            "server.max_waiters: expected an integer, got \"many\"",
            "server.idle_timeout: must not be shorter than request_timeout",
            "server.max_connections: must be between 1 and 10000000, got 0",
            "server.transport: expected one of auto, io_uring, epoll, nio, got \"kqueue\"",
            "auth.require_tokens: expected true or false, got \"maybe\"",
            "sources: expected a map, got a list",
            "queues.billing.visibility_timeout: not a duration: \"6o\"",
            "queues.billing.dead_letter_queue: expected a queue name, \"\" or false, got a list",
            "queues.billing.ttl: expected a duration such as 30s, got true",
            "queues.billing.consumer_tokens: expected a list of strings, got a map",
            "queues.billing.events[1]: expected a string, got a list",
            "queues.billing.max_attempts: must be between 0 (unlimited) and 1000, got -1",
            "queues.billing.source: no source named \"nowhere\" in sources",
            "queues.bad name: " + QueueSettings.NAME_RULE,
            "queues.bad name.delay: must be between 0s and 30d, got 40d",
            "queues.other: expected a map, got 5",
            "pull_api: expected a map, got 3",
            "push: expected a map, got a list");
  }

  @Test
  void unknownKeysAreErrorsWithSuggestions() {
    assertThat(
            errors(
                """
                server:
                  prot: 1
                queues:
                  billing:
                    visibilty_timeout: 5s
                    colour: blue
                strage: {}
                """))
        .containsExactly(
            "server.prot: unknown key (did you mean port?)",
            "queues.billing.visibilty_timeout: unknown key (did you mean visibility_timeout?)",
            "queues.billing.colour: unknown key",
            "strage: unknown key (did you mean storage?)");
  }

  @Test
  void problemsComeInTheOrderOfTheFile() {
    // Found in passes (variables, sections in a fixed order, loops across queues), listed as the
    // file goes; a queue name with a dot has one path whichever pass reports it.
    assertThat(
            errors(
                """
                queues:
                  a: {dead_letter_queue: b}
                  b: {dead_letter_queue: a}
                  billing:
                    delay: ${NOPE}
                    max_attempts: -1
                  "x.y":
                    ttl: ${GONE}
                    colour: blue
                server:
                  port: 70000
                  host: ${HOST}
                strage: {}
                auth:
                  admin_token: ${ADMIN}
                """))
        .containsExactly(
            "queues.a.dead_letter_queue: leads back to this queue (a -> b -> a), where a message"
                + " that keeps failing would move round forever",
            "queues.b.dead_letter_queue: leads back to this queue (b -> a -> b), where a message"
                + " that keeps failing would move round forever",
            "queues.billing.delay: environment variable NOPE is not set (use ${NOPE:-default})",
            "queues.billing.max_attempts: must be between 0 (unlimited) and 1000, got -1",
            "queues.\"x.y\".ttl: environment variable GONE is not set (use ${GONE:-default})",
            "queues.\"x.y\".colour: unknown key",
            "server.port: must be between 0 and 65535, got 70000",
            "server.host: environment variable HOST is not set (use ${HOST:-default})",
            "strage: unknown key (did you mean storage?)",
            "auth.admin_token: environment variable ADMIN is not set (use ${ADMIN:-default})");
  }

  @Test
  void deadLetterQueueCanBeTurnedOff() {
    WharfConfig c =
        parse(
            """
            queues:
              a: {dead_letter_queue: ""}
              b: {dead_letter_queue: false}
              c: {dead_letter_queue: a}
              d: {dead_letter_queue: d}
            """
                .replace("  d: {dead_letter_queue: d}\n", ""));
    assertThat(c.queues().get("a").settings().deadLetterQueue()).isNull();
    assertThat(c.queues().get("b").settings().deadLetterQueue()).isNull();
    assertThat(c.queues().get("c").settings().deadLetterQueue()).isEqualTo("a");
    assertThat(errors("queues:\n  d: {dead_letter_queue: d}\n"))
        .containsExactly("queues.d.dead_letter_queue: a queue cannot be its own dead-letter queue");
    // A loop through other queues of the file: each queue in it is named. A chain that ends is
    // fine, and so is one into a DLQ the file does not declare.
    assertThat(
            errors(
                "queues:\n  a: {dead_letter_queue: b}\n  b: {dead_letter_queue: c}\n"
                    + "  c: {dead_letter_queue: a}\n  e: {dead_letter_queue: a}\n"
                    + "  f: {dead_letter_queue: g}\n"))
        .containsExactly(
            "queues.a.dead_letter_queue: leads back to this queue (a -> b -> c -> a), where a"
                + " message that keeps failing would move round forever",
            "queues.b.dead_letter_queue: leads back to this queue (b -> c -> a -> b), where a"
                + " message that keeps failing would move round forever",
            "queues.c.dead_letter_queue: leads back to this queue (c -> a -> b -> c), where a"
                + " message that keeps failing would move round forever");
  }

  @Test
  void aLongLoopIsCheckedQuicklyAndNamedInShort() {
    StringBuilder yaml = new StringBuilder("queues:\n");
    int n = 3000;
    for (int i = 0; i < n; i++) {
      yaml.append("  q").append(i).append(": {dead_letter_queue: q").append((i + 1) % n)
          .append("}\n");
    }
    List<String> loops = errors(yaml.toString());
    assertThat(loops).hasSize(n);
    assertThat(loops.get(0))
        .isEqualTo("queues.q0.dead_letter_queue: leads back to this queue (q0 -> q1 -> q2 -> q3"
            + " -> q4 -> ... -> q2996 -> q2997 -> q2998 -> q2999 -> q0, 3000 queues), where a"
            + " message that keeps failing would move round forever");
  }

  @Test
  void zeroTtlMeansNone() {
    assertThat(parse("queues:\n  q: {ttl: 0s}\n").queues().get("q").settings().ttl()).isNull();
  }

  @Test
  void sizesAndDurationsInTheirForms() {
    assertThat(parse("server: {max_body: 2048}").server().maxBodyBytes()).isEqualTo(2048);
    assertThat(parse("server: {max_body: 2mb}").server().maxBodyBytes()).isEqualTo(2 << 20);
    assertThat(parse("server: {max_wait: 250ms}").server().maxWait())
        .isEqualTo(Duration.ofMillis(250));
    assertThat(parse("server: {max_wait: 5m}").server().maxWait()).isEqualTo(Duration.ofMinutes(5));
    assertThat(parse("server: {max_wait: 12}").server().maxWait())
        .isEqualTo(Duration.ofSeconds(12));
    assertThat(errors("server: {host: 'not a host!'}"))
        .containsExactly("server.host: expected a host name or an IP address, got \"not a host!\"");
    assertThat(parse("server: {host: '::1'}").server().host()).isEqualTo("::1");
    assertThat(parse("server: {host: 'fe80::1%eth0'}").server().host()).isEqualTo("fe80::1%eth0");
    // An integer past any range is out of range, not "not an integer"; a name with dots is quoted.
    assertThat(errors("server: {max_waiters: 99999999999999999999}"))
        .containsExactly(
            "server.max_waiters: must be between 1 and 1000000, got 99999999999999999999");
    assertThat(errors("queues: {'..': {}}"))
        .containsExactly("queues.\"..\": " + QueueSettings.NAME_RULE);
    assertThat(errors("server: {max_body: 10}"))
        .containsExactly("server.max_body: must be between 1KB and 1GB, got 10B");
    assertThat(errors("server: {max_wait: 1h}"))
        .containsExactly("server.max_wait: must be between 0s and 15m, got 1h");
    assertThat(errors("server: {max_body: 1.5MB}"))
        .containsExactly("server.max_body: not a size: \"1.5MB\"");
  }

  @Test
  void aDurationFarPastItsRangeIsToldThatRange() {
    assertThat(errors("server: {max_wait: 99999d}"))
        .containsExactly("server.max_wait: must be between 0s and 15m, got 99999d");
    assertThat(errors("queues: {q: {delay: 99999d, ttl: 999999999999d}}"))
        .containsExactly(
            "queues.q.delay: must be between 0s and 30d, got 99999d",
            "queues.q.ttl: must be between 0s and 365d, got more than 1000000000d");
    // Past what a long holds: still a duration, and still one too long.
    assertThat(errors("queues: {q: {delay: 9999999999999999999999s, ttl: 99999999999999999999}}"))
        .containsExactly(
            "queues.q.delay: must be between 0s and 30d, got more than 1000000000d",
            "queues.q.ttl: must be between 0s and 365d, got more than 1000000000d");
    assertThat(errors("storage: {kind: postgres, url: 'postgres://h/db', stall_timeout: 99999d}"))
        .containsExactly("storage.stall_timeout: must be between 1s and 1h, got 99999d");
  }

  @Test
  void aNegativeDurationIsSaidToBeOneAsTheApiSaysIt() {
    assertThat(errors("queues: {q: {delay: -5s}}\nserver: {max_wait: -5}\n"))
        .containsExactly(
            "queues.q.delay: must not be negative, got \"-5s\"",
            "server.max_wait: must not be negative, got -5");
    assertThat(errors("queues: {q: {delay: -soon}}"))
        .containsExactly("queues.q.delay: not a duration: \"-soon\"");
  }

  @Test
  void bodyMemoryHoldsAtLeastOneLargestBody() {
    long dflt = dev.wharf.http.HttpSettings.defaultBodyMemory();
    assertThat(dflt).isEqualTo(Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4));
    assertThat(parse("server: {}").server().maxBodyMemory()).isEqualTo(dflt);
    assertThat(parse("server: {max_body: 1GB}").server().maxBodyMemory()).isEqualTo(1L << 30);
    assertThat(parse("server: {max_body_memory: 64MB}").server().maxBodyMemory())
        .isEqualTo(64L << 20);
    assertThat(parse("server: {max_body: 4MB, max_body_memory: 4MB}").httpSettings().maxBodyMemory())
        .isEqualTo(4L << 20);
    assertThat(errors("server: {max_body: 4MB, max_body_memory: 2MB}"))
        .containsExactly("server.max_body_memory: must be between max_body (4MB) and 64GB, got 2MB");
    assertThat(errors("server: {max_body_memory: 100GB}"))
        .containsExactly(
            "server.max_body_memory: must be between max_body (1MB) and 64GB, got 100GB");
  }

  @Test
  void syntaxErrorsAndDuplicateKeysNameTheLine() {
    assertThat(errors("server:\n  port: 1\n  port: 2\n").get(0))
        .startsWith("wharf.yaml: line 3")
        .contains("Duplicate field 'port'");
    // One line: what went wrong, and where the construct being read began.
    assertThat(errors("server: [\n  port: 1\n"))
        .containsExactly(
            "wharf.yaml: line 3, column 1: not valid YAML: expected ',' or ']', but got <stream"
                + " end> (while parsing a flow sequence at line 1, column 9)");
    assertThat(errors("- a\n- b\n")).containsExactly(
        "wharf.yaml: expected a map of sections (server, storage, queues, ...), got a list");
    // The line of the problem itself, not of the last token read before it.
    assertThat(errors("queues:\n  a:\n\n\n# comment\n\n\n\n\tmax_attempts: 1\n").get(0))
        .startsWith("wharf.yaml: line 9, column 1: not valid YAML: found character '\\t(TAB)'");
  }

  @Test
  void loadsFromFileAndNamesAMissingOne(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("wharf.yaml");
    Files.writeString(file, "server:\n  port: 1234\n");
    assertThat(loader.load(file).server().port()).isEqualTo(1234);
    Path missing = dir.resolve("nope.yaml");
    assertThatThrownBy(() -> loader.load(missing))
        .isInstanceOf(ConfigException.class)
        .hasMessage(missing + ": no such file");
    Path latin1 = dir.resolve("latin1.yaml");
    Files.write(latin1, new byte[] {'#', ' ', 'c', 'a', 'f', (byte) 0xE9, '\n'});
    assertThatThrownBy(() -> loader.load(latin1))
        .isInstanceOf(ConfigException.class)
        .hasMessage(latin1 + ": cannot read: not UTF-8 text");
  }
}
