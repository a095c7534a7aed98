package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.wharf.http.KeepAliveClient.Reply;
import dev.wharf.http.NativeRoutes.Route;
import dev.wharf.http.RequestMutator.Case;
import dev.wharf.http.RequestMutator.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random bad input for every native route: a valid request with one mistake in it (a field
 * dropped, of the wrong type or out of range, text that is not text, JSON that is not JSON, a
 * body too long or of another type, a bad query parameter or path segment). Each must be a 4xx
 * with the documented error body and must leave every queue as it was; after the run, the valid
 * requests are still served.
 *
 * <p>{@code -Dwharf.mutated.seed=} replays a run; {@code -Dwharf.mutated.cases=} sets its
 * length.
 */
class MutatedRequestsTest {
  static final String SEED = "wharf.mutated.seed";
  static final String CASES = "wharf.mutated.cases";

  /** What only a server's insides would write: class names, frames, the parser's switches. */
  private static final Pattern INTERNALS =
      Pattern.compile(
          "Exception|\\bat [a-z]+\\.[a-z]|\\.java:\\d|\\b(java|javax|jdk|sun|io\\.netty"
              + "|com\\.fasterxml|dev\\.wharf|org\\.sqlite)\\.[a-z]|Jackson|`");

  /** Reads answers strictly: a duplicate member in an error body is a defect too. */
  private static final ObjectMapper STRICT =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  @TempDir Path dir;

  @Test
  void everyMutationOfAValidRequestIsAClearErrorAndChangesNothing() {
    long seed = Long.getLong(SEED, 20_26L);
    int cases = Integer.getInteger(CASES, 1500);
    try (TestServer server = new TestServer(dir);
        KeepAliveClient client = new KeepAliveClient(server.http.port())) {
      NativeRoutes.Ids ids = MutatedRequestsSetup.fill(server.api, "q");
      List<Route> routes = NativeRoutes.all(ids);
      RequestMutator mutator = new RequestMutator(new Random(seed), "q", TestServer.MAX_BODY);
      Random pick = new Random(seed ^ 0x5eed);
      String before = snapshot(client);
      Map<Kind, Integer> seen = new EnumMap<>(Kind.class);
      Set<String> routesSeen = new HashSet<>();
      for (int i = 0; i < cases; i++) {
        Route route = routes.get(pick.nextInt(routes.size()));
        List<Kind> kinds = mutator.kinds(route);
        Kind kind = kinds.get(pick.nextInt(kinds.size()));
        seen.merge(kind, 1, Integer::sum);
        routesSeen.add(route.label());
        Case c = mutator.mutate(route, kind);
        String where = "seed " + seed + " (-D" + SEED + "=" + seed + "), case " + i + ", "
            + route.label() + ", " + kind + ": " + c.what() + "\n  request: " + c.request();
        Reply r = client.send(c.request());
        assertRefused(where, c, r);
        String after = snapshot(client);
        if (!after.equals(before)) {
          fail(where + "\n  changed the queues:\n  before: " + before + "\n  after:  " + after);
        }
      }
      assertThat(seen.keySet()).as("mutation kinds reached").hasSize(Kind.values().length);
      assertThat(routesSeen).as("routes reached").hasSize(routes.size());
      assertThat(server.broker.waitingConsumers()).as("receives left waiting").isZero();
      MutatedRequestsSetup.validRequestsAreStillServed(client, mutator, routes);
    }
  }

  private static void assertRefused(String where, Case c, Reply r) {
    String text = r.text();
    String got = "\n  answer: " + r.status() + " " + text;
    if (!c.statuses().contains(r.status())) {
      fail(where + "\n  expected " + c.statuses() + " " + c.code() + got);
    }
    if (!String.valueOf(r.header("content-type")).startsWith("application/json")) {
      fail(where + "\n  an error answer that is not JSON" + got);
    }
    JsonNode json;
    try {
      json = STRICT.readTree(text);
    } catch (Exception e) {
      fail(where + "\n  an error body that does not parse: " + e.getMessage() + got);
      return;
    }
    List<String> names = new ArrayList<>();
    json.fieldNames().forEachRemaining(names::add);
    if (!json.isObject() || !names.equals(List.of("code", "detail"))
        || !json.get("code").isTextual() || !json.get("detail").isTextual()
        || json.get("detail").asText().isBlank()) {
      fail(where + "\n  not the documented {code, detail} error body" + got);
    }
    if (!json.get("code").asText().equals(c.code())) {
      fail(where + "\n  expected code " + c.code() + got);
    }
    if (Utf8.loneSurrogate(json.get("detail").asText()) >= 0) {
      fail(where + "\n  the detail holds half a surrogate pair: strict readers refuse it" + got);
    }
    if (INTERNALS.matcher(text).find()) {
      fail(where + "\n  the answer shows the server's internals" + got);
    }
  }

  /**
   * Everything a refused request could have changed: every queue's settings and counts, and each
   * message of the test's queue and its DLQ with its state, attempt and lease.
   */
  static String snapshot(KeepAliveClient client) {
    StringBuilder s = new StringBuilder();
    for (String path :
        List.of("/v1/queues", "/v1/queues/q/messages?limit=1000", "/v1/queues/q/dlq?limit=1000")) {
      Reply r = client.send(WireRequest.of("GET", path, null));
      assertThat(r.status()).as(path + " " + r.text()).isEqualTo(200);
      s.append(r.text()).append('\n');
    }
    return s.toString();
  }
}
