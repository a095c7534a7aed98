package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Commands that never reach a server: config check, refusals, and an unreachable server. */
class CliOfflineTest {
  @TempDir Path dir;

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void aPublishInputTooLargeOrMissingIsOneClearLine() throws Exception {
    Path big = dir.resolve("big.bin");
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
      f.setLength(PublishCommand.MAX_INPUT + 1L);
    }
    CliRun r = CliRun.run("publish", "q", "--file", big.toString(), "--url", "http://127.0.0.1:1");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).isEqualTo(
        "wharf: " + big + " holds more than 64 MB: too large a message to publish\n");
    CliRun missing =
        CliRun.run("publish", "q", "--file", dir.resolve("none").toString(), "--url",
            "http://127.0.0.1:1");
    assertThat(missing.err())
        .isEqualTo("wharf: cannot read " + dir.resolve("none") + ": no such file\n");
  }

  @Test
  void everyQueuesCommandShowsItsOwnHelp() {
    for (String[] c : new String[][] {
        {"list"}, {"inspect", "--limit=N"}, {"peek"}, {"dlq", "--limit=N"}, {"retry", "--id"},
        {"drain", "--force"}}) {
      CliRun r = CliRun.run("queues", c[0], "--help");
      assertThat(r.exitCode()).as(c[0]).isZero();
      assertThat(r.out()).as(c[0]).contains("Usage: wharf queues " + c[0]).contains("--url");
      if (c.length > 1) {
        assertThat(r.out()).as(c[0]).contains(c[1]);
      }
    }
  }

  @Test
  void publishHelpWrapsEachParagraphWhole() {
    CliRun r = CliRun.run("publish", "--help");
    assertThat(r.exitCode()).isZero();
    // A paragraph split over two description strings left a word alone on a line.
    assertThat(r.out())
        .contains("as text when it is\nUTF-8, and as bytes otherwise.")
        .doesNotContainPattern("\n[^ \n]+,\n");
  }

  @Test
  void unreachableServerIsOneClearLineAndExit2() throws Exception {
    int port = freePort();
    Path cfg = dir.resolve("wharf.yaml");
    Files.writeString(cfg, "server:\n  port: " + port + "\n");
    CliRun r = CliRun.run("queues", "list", "-c", cfg.toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .isEqualTo(
            "wharf: cannot reach the server at http://127.0.0.1:"
                + port
                + " (connection refused) — is 'wharf serve' running?\n");
  }

  @Test
  void aTokenNoHeaderCanCarryIsOneClearLine() {
    CliRun r = CliRun.run("queues", "list", "--url", "http://127.0.0.1:1", "--token", "x\u20ac");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).startsWith("wharf: the token cannot be sent: a token must be ASCII")
        .doesNotContain("Exception");
  }

  @Test
  void urlOptionAndEnvironmentOverrideTheConfig() throws Exception {
    int port = freePort();
    CliRun r = CliRun.run("queues", "peek", "billing", "--url", "http://127.0.0.1:" + port);
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("http://127.0.0.1:" + port + " (connection refused)");
    CliRun e =
        CliRun.run(
            Map.of("WHARF_URL", "http://127.0.0.1:" + port + "/"),
            "",
            "publish",
            "q",
            "--text",
            "x");
    assertThat(e.exitCode()).isEqualTo(2);
    assertThat(e.err()).contains("at http://127.0.0.1:" + port + " (");
  }

  @Test
  void badUrlsAreOneClearLineAndExit1() {
    assertBadUrl("notaurl", "expected http://HOST:PORT");
    assertBadUrl("127.0.0.1:18950", "expected http://HOST:PORT");
    assertBadUrl("ftp://127.0.0.1:18950", "the scheme must be http or https, not ftp");
    assertBadUrl("http://127.0.0.1:99999", "port 99999 is not between 1 and 65535");
    assertBadUrl("http://127.0.0.1:0", "port 0 is not between 1 and 65535");
    assertBadUrl("http://127.0.0.1:18950?x=1", "no query or fragment allowed");
    CliRun env =
        CliRun.run(Map.of("WHARF_URL", "notaurl", "WHARF_TOKEN", "t"), "", "queues", "list");
    assertThat(env.exitCode()).isEqualTo(1);
    assertThat(env.err())
        .isEqualTo("wharf: not a valid server URL: notaurl (expected http://HOST:PORT)\n");
  }

  private static void assertBadUrl(String url, String why) {
    CliRun r = CliRun.run("queues", "list", "--url", url, "--token", "t");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).isEqualTo("wharf: not a valid server URL: " + url + " (" + why + ")\n");
  }

  @Test
  void unknownHostSaysItCouldNotBeResolved() {
    // .invalid is reserved (RFC 6761): it never resolves.
    CliRun r =
        CliRun.run("queues", "list", "--url", "http://no-such-host.invalid:18950", "--token", "t");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "wharf: cannot reach the server at http://no-such-host.invalid:18950 (the host"
                + " no-such-host.invalid could not be resolved) — check the host name\n");
  }

  @Test
  void badOptionValuesExit1AndMalformedCommandLinesExit64() {
    String url = "http://127.0.0.1:1";
    CliRun limit = CliRun.run("queues", "inspect", "q", "--limit", "abc", "--url", url);
    assertThat(limit.exitCode()).isEqualTo(1);
    assertThat(limit.err())
        .startsWith("wharf: Invalid value for option '--limit': 'abc' is not an int\n");
    CliRun zero = CliRun.run("queues", "inspect", "q", "--limit", "0", "--url", url);
    assertThat(zero.exitCode()).isEqualTo(1);
    assertThat(zero.err()).isEqualTo("wharf: --limit must be between 1 and 1000\n");
    CliRun header = CliRun.run("publish", "q2", "--header", "novalue", "--url", url);
    assertThat(header.exitCode()).isEqualTo(1);
    assertThat(header.err()).isEqualTo("wharf: --header takes NAME=VALUE, got \"novalue\"\n");
    CliRun unnamed = CliRun.run("publish", "q2", "--header", "=v", "--url", url);
    assertThat(unnamed.exitCode()).isEqualTo(1);
    assertThat(unnamed.err()).isEqualTo("wharf: --header takes NAME=VALUE, got \"=v\"\n");

    assertThat(CliRun.run("queues", "inspect", "q", "--nope").exitCode()).isEqualTo(Main.USAGE);
    assertThat(CliRun.run("queues", "inspect").exitCode()).isEqualTo(Main.USAGE);
    assertThat(CliRun.run("queues", "inspect", "q", "--limit").exitCode()).isEqualTo(Main.USAGE);
    assertThat(CliRun.run("queues", "inspect", "q", "r").exitCode()).isEqualTo(Main.USAGE);
  }

  /** A command line that names no command to run, or one that does not exist, is a usage error. */
  @Test
  void aMissingOrUnknownCommandIsAUsageErrorNamingTheCommands() {
    CliRun none = CliRun.run();
    assertThat(none.exitCode()).isEqualTo(Main.USAGE);
    assertThat(none.err()).startsWith("wharf: a command is required: serve, config, queues,");
    CliRun queues = CliRun.run("queues");
    assertThat(queues.exitCode()).isEqualTo(Main.USAGE);
    assertThat(queues.err()).contains("dlq, drain, inspect, list, peek, retry");
    CliRun bogus = CliRun.run("queues", "bogus");
    assertThat(bogus.exitCode()).isEqualTo(Main.USAGE);
    assertThat(bogus.err()).startsWith("wharf: unknown command 'bogus': wharf queues has dlq,");
    assertThat(CliRun.run("config").exitCode()).isEqualTo(Main.USAGE);
  }

  @Test
  void aHeaderNameGivenTwiceIsAUsageErrorBeforeAnythingIsSent() {
    // Port 1: were it sent, the answer would be exit 2, not the refusal.
    CliRun r =
        CliRun.run(
            "publish", "q", "--text", "x", "--header", "a=b", "--header", "x-sig=v1=c",
            "--header", "a=c", "--url", "http://127.0.0.1:1");
    assertThat(r.exitCode()).isEqualTo(Main.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .isEqualTo(
            "wharf: header a given twice (--header a=b and --header a=c): a message has one value"
                + " per header name\nTry 'wharf publish --help'.\n");
    CliRun same =
        CliRun.run(
            "publish", "q", "--text", "x", "--header", "a=b", "--header", "a=b",
            "--url", "http://127.0.0.1:1");
    assertThat(same.exitCode()).isEqualTo(Main.USAGE);
  }

  @Test
  void aHeaderNameGivenTwiceIsRefusedBeforeStdinIsRead() {
    // Were stdin read first, the body would be published (or the terminal waited on).
    InputStream unread =
        new InputStream() {
          @Override
          public int read() {
            throw new AssertionError("stdin read");
          }
        };
    StringWriter err = new StringWriter();
    int code =
        Main.run(
            new String[] {"publish", "q", "--header", "a=1", "--header", "a=2", "--url",
              "http://127.0.0.1:1"},
            Map.of(),
            unread,
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true));
    assertThat(code).as(err.toString()).isEqualTo(Main.USAGE);
  }

  @Test
  void wildcardListenAddressIsReachedOnLoopback() {
    assertThat(dev.wharf.app.WharfApp.baseUrl("0.0.0.0", 8080)).isEqualTo("http://127.0.0.1:8080");
    assertThat(dev.wharf.app.WharfApp.baseUrl("::", 9)).isEqualTo("http://[::1]:9");
    assertThat(dev.wharf.app.WharfApp.baseUrl("fe80::1", 9)).isEqualTo("http://[fe80::1]:9");
    assertThat(dev.wharf.app.WharfApp.baseUrl("example.org", 80))
        .isEqualTo("http://example.org:80");
    assertThat(dev.wharf.app.WharfApp.baseUrl("[::1]", 9)).isEqualTo("http://[::1]:9");
  }

  @Test
  void drainRefusesWithoutForce() {
    CliRun r = CliRun.run("queues", "drain", "billing", "--url", "http://127.0.0.1:1");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).contains("add --force");
  }

  @Test
  void publishRejectsInvalidJsonAndBadDelayBeforeSending() {
    CliRun bad = CliRun.run("publish", "q", "--data", "{nope", "--url", "http://127.0.0.1:1");
    assertThat(bad.exitCode()).isEqualTo(1);
    assertThat(bad.err()).isEqualTo("wharf: --data is not valid JSON: {nope\n");
    CliRun delay =
        CliRun.run("publish", "q", "--text", "x", "--delay", "soon", "--url", "http://127.0.0.1:1");
    assertThat(delay.exitCode()).isEqualTo(1);
    assertThat(delay.err()).isEqualTo("wharf: --delay: not a duration: \"soon\"\n");
    CliRun negative =
        CliRun.run("publish", "q", "--text", "x", "--ttl", "-5s", "--url", "http://127.0.0.1:1");
    assertThat(negative.err()).isEqualTo("wharf: --ttl: must not be negative, got \"-5s\"\n");
    CliRun both = CliRun.run("publish", "q", "--text", "x", "--data", "1");
    assertThat(both.exitCode()).isEqualTo(Main.USAGE);
    assertThat(both.err()).contains("mutually exclusive");
  }

  @Test
  void clientWithBadConfigListsItsErrors() throws Exception {
    Path cfg = dir.resolve("bad.yaml");
    Files.writeString(cfg, "server:\n  port: nine\n");
    CliRun r = CliRun.run("queues", "list", "-c", cfg.toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err())
        .isEqualTo(
            "wharf: the config "
                + cfg
                + " has errors:\n  server.port: expected an integer, got \"nine\"\n");
  }

  @Test
  void configCheckListsEveryErrorAndExits1() throws Exception {
    Path cfg = dir.resolve("wharf.yaml");
    Files.writeString(
        cfg,
        """
        server:
          port: ${PORT}
        queues:
          billing:
            visibility_timeout: 6o
            max_attemps: 3
        """);
    CliRun r = CliRun.run("config", "check", "-c", cfg.toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out())
        .isEqualTo(
            cfg
                + ": 3 errors\n"
                + "  server.port: environment variable PORT is not set (use ${PORT:-default})\n"
                + "  queues.billing.visibility_timeout: not a duration: \"6o\"\n"
                + "  queues.billing.max_attemps: unknown key (did you mean max_attempts?)\n");
  }

  @Test
  void configCheckSaysOkWithASummary() throws Exception {
    Path cfg = dir.resolve("wharf.yaml");
    Files.writeString(
        cfg,
        """
        server:
          port: ${PORT:-9000}
        auth:
          admin_token: ${TOKEN}
        queues:
          billing: {}
          jobs: {dead_letter_queue: ""}
        """);
    CliRun r = CliRun.run(Map.of("TOKEN", "s"), "", "config", "check", "-c", cfg.toString());
    assertThat(r.exitCode()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "ok: "
                + cfg
                + "\n"
                + "  listen:  127.0.0.1:9000\n"
                + "  storage: sqlite ./data/wharf.db\n"
                + "  auth:    admin token set\n"
                + "  queues:  2: billing (dlq billing.dlq), jobs\n"
                + "  sources: 0\n");
  }

  @Test
  void configCheckNamesTwentyQueuesAndCountsTheRest() throws Exception {
    Path cfg = dir.resolve("many.yaml");
    StringBuilder yaml = new StringBuilder("queues:\n");
    for (int i = 0; i < 25; i++) {
      yaml.append("  q").append(i).append(": {dead_letter_queue: \"\"}\n");
    }
    Files.writeString(cfg, yaml.toString());
    CliRun r = CliRun.run("config", "check", "-c", cfg.toString());
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("  queues:  25: q0, q1, q2, ", ", q19, and 5 more\n");
  }

  @Test
  void configCheckWarnsOfRequiredTokensWithNoAdminToken() throws Exception {
    Path cfg = dir.resolve("wharf.yaml");
    Files.writeString(
        cfg,
        """
        auth:
          require_tokens: true
        queues:
          billing: {}
          jobs: {consumer_tokens: [j0bs]}
        """);
    CliRun r = CliRun.run("config", "check", "-c", cfg.toString());
    assertThat(r.exitCode()).isZero();
    assertThat(r.out())
        .contains(
            "  auth:    no admin token (management from loopback only), tokens required on every"
                + " queue\n")
        .endsWith(
            "  warning: require_tokens without an admin token: a queue without consumer_tokens"
                + " takes no data requests at all (here: billing)\n");
  }

  @Test
  void configCheckOfAMissingFileFails() {
    CliRun r = CliRun.run("config", "check", "-c", dir.resolve("none.yaml").toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).contains("none.yaml: no such file");
  }

  @Test
  void exampleConfigIsValid() {
    CliRun r = CliRun.run("config", "check", "-c", "wharf.example.yaml");
    assertThat(r.out()).startsWith("ok: wharf.example.yaml");
    assertThat(r.exitCode()).isZero();
  }

  @Test
  void serveStopsWithOneLineWhenItCannotStart() throws Exception {
    CliRun missing = CliRun.run("serve", "-c", dir.resolve("none.yaml").toString());
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err())
        .isEqualTo("wharf: no config file at " + dir.resolve("none.yaml") + "\n");
    Path pg = dir.resolve("pg.yaml");
    // Port 1 on loopback: nothing listens, so the database cannot be reached.
    Files.writeString(pg,
        "storage:\n  kind: postgres\n  url: postgres://w:s3cret@127.0.0.1:1/w\n");
    CliRun r = CliRun.run("serve", "-c", pg.toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).startsWith("wharf: cannot open storage (postgres postgres://w:***@");
    assertThat(r.err().lines()).hasSize(1);
    CliRun checked = CliRun.run("config", "check", "-c", pg.toString());
    assertThat(checked.exitCode()).isZero();
    assertThat(checked.out()).contains("postgres://w:***@").doesNotContain("s3cret");
  }

  @Test
  void unknownCommandIsAUsageError() {
    CliRun r = CliRun.run("queues", "frobnicate");
    assertThat(r.exitCode()).isEqualTo(Main.USAGE);
  }
}
