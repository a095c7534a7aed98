package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client commands against a server that is not Wharf: a stub on an ephemeral port that gives
 * every request the same answer. Whatever it says, no command may take it for an empty result.
 */
class CliForeignAnswerTest {
  private static HttpServer stub;
  private static String url;
  private static volatile Answer answer;

  record Answer(int status, String type, String body) {}

  @BeforeAll
  static void start() throws IOException {
    stub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    stub.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          Answer a = answer;
          byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
          if (a.type() != null) {
            exchange.getResponseHeaders().set("Content-Type", a.type());
          }
          exchange.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    stub.start();
    url = "http://127.0.0.1:" + stub.getAddress().getPort();
  }

  @AfterAll
  static void stop() {
    stub.stop(0);
  }

  /** Every command, with the method and path of its first request. */
  private static final List<List<String>> COMMANDS =
      List.of(
          List.of("GET /v1/queues", "queues", "list"),
          List.of("GET /v1/queues/q", "queues", "inspect", "q"),
          List.of("GET /v1/queues/q/messages?state=ready&limit=1", "queues", "peek", "q"),
          List.of("GET /v1/queues/q/dlq?limit=50", "queues", "dlq", "q"),
          List.of("POST /v1/queues/q/dlq/redrive", "queues", "retry", "q"),
          List.of("POST /v1/queues/q/purge", "queues", "drain", "q", "--force"),
          List.of("POST /v1/queues/q/messages", "publish", "q", "--text", "x"));

  private static CliRun wharf(List<String> args, boolean json) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--url", url, "--token", "t"));
    if (json) {
      all.add("--json");
    }
    return CliRun.run(all.toArray(String[]::new));
  }

  /** Each command, with and without --json, fails with one line naming the request and answer. */
  private static void assertEveryCommandRefuses(Answer a, String what) {
    answer = a;
    for (List<String> c : COMMANDS) {
      for (boolean json : new boolean[] {false, true}) {
        CliRun r = wharf(c.subList(1, c.size()), json);
        String line = String.join(" ", c.subList(1, c.size())) + (json ? " --json" : "");
        assertThat(r.exitCode()).as(line + ": " + r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).as(line).isEmpty();
        assertThat(r.err())
            .as(line)
            .isEqualTo(
                "wharf: the answer from "
                    + url
                    + " to "
                    + c.get(0)
                    + " is not Wharf's JSON (status "
                    + a.status()
                    + ", "
                    + what
                    + ")\n");
      }
    }
  }

  @Test
  void textIsNotAnEmptyResult() {
    assertEveryCommandRefuses(new Answer(200, "text/plain", "not json\n"), "text/plain");
  }

  @Test
  void jsonWithoutWhatTheCommandReadsIsNotAnEmptyResult() {
    assertEveryCommandRefuses(new Answer(200, "application/json", "{}"), "application/json");
    assertEveryCommandRefuses(new Answer(200, "application/json", "[]"), "application/json");
    assertEveryCommandRefuses(new Answer(200, null, "{\"ok\":true}"), "no type");
  }

  @Test
  void anEmptyAnswerIsNotAnEmptyResult() {
    assertEveryCommandRefuses(new Answer(200, "application/json", ""), "no body");
    assertEveryCommandRefuses(new Answer(204, null, ""), "no body");
  }

  @Test
  void theRightShapeWithTheWrongTypesIsRefused() {
    answer = new Answer(200, "application/json", "{\"queues\":[{\"name\":1}]}");
    assertThat(wharf(List.of("queues", "list"), false).exitCode()).isEqualTo(1);
    answer = new Answer(200, "application/json", "{\"messages\":[\"01J\"]}");
    assertThat(wharf(List.of("queues", "peek", "q"), false).exitCode()).isEqualTo(1);
    answer = new Answer(200, "application/json", "{\"redriven\":\"3\"}");
    assertThat(wharf(List.of("queues", "retry", "q"), false).exitCode()).isEqualTo(1);
    answer = new Answer(200, "application/json", "{\"purged\":null}");
    assertThat(wharf(List.of("queues", "drain", "q", "--force"), false).exitCode()).isEqualTo(1);
    answer = new Answer(200, "application/json", "{\"id\":{}}");
    assertThat(wharf(List.of("publish", "q", "--text", "x"), false).exitCode()).isEqualTo(1);
  }

  @Test
  void textAfterTheJsonOrAFieldGivenTwiceIsRefused() {
    answer = new Answer(200, "application/json", "{\"queues\":[]} <html>");
    CliRun r = wharf(List.of("queues", "list"), true);
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    // The tree would read the last "messages", the printed text the first.
    answer = new Answer(200, "application/json", "{\"messages\":{},\"messages\":[]}");
    CliRun twice = wharf(List.of("queues", "peek", "q"), true);
    assertThat(twice.exitCode()).isEqualTo(1);
    assertThat(twice.out()).isEmpty();
  }

  @Test
  void anErrorPageIsOneLineNotItsHtml() {
    assertEveryCommandRefuses(
        new Answer(404, "text/html", "<html>\n<body>\u001b[2JNot found</body>\n</html>\n"),
        "text/html");
  }

  @Test
  void wharfsAnswersOfNothingAreStillEmptyResults() {
    answer = new Answer(200, "application/json", "{\"queues\":[]}");
    assertThat(wharf(List.of("queues", "list"), false).out()).isEqualTo("no queues\n");
    answer = new Answer(200, "application/json", "{\"messages\":[],\"next\":null}");
    assertThat(wharf(List.of("queues", "peek", "q"), false).out())
        .isEqualTo("no ready message in q\n");
    assertThat(wharf(List.of("queues", "dlq", "q"), false).out())
        .isEqualTo("no dead messages from q\n");
    answer = new Answer(200, "application/json", "{\"redriven\":0}");
    assertThat(wharf(List.of("queues", "retry", "q"), false).out())
        .isEqualTo("moved 0 dead messages back to q\n");
  }
}
