package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.http.KeepAliveClient.Reply;
import dev.wharf.http.NativeRoutes.Route;
import java.util.List;

/**
 * The queue {@link MutatedRequestsTest} spoils requests against, holding a message in each state
 * a route acts on; and the check, after the run, that the valid requests are served as api.md
 * says.
 */
final class MutatedRequestsSetup {
  private MutatedRequestsSetup() {}

  /** Ready messages, a delayed one, one leased for an hour and one dead in the DLQ. */
  static NativeRoutes.Ids fill(Api api, String queue) {
    String q = "/v1/queues/" + queue;
    assertThat(api.put(q, "{}").status()).isEqualTo(201);
    for (String m : List.of("{\"body\": {\"n\": 1}}", "{\"body\": 2}",
        "{\"body\": \"t\", \"content_type\": \"text\", \"key\": \"k-1\"}",
        "{\"body\": [4], \"headers\": {\"a\": \"b\"}, \"metadata\": {\"m\": 7.50}}",
        "{\"body\": 5, \"delay\": \"1h\"}")) {
      assertThat(api.post(q + "/messages", m).status()).isEqualTo(201);
    }
    JsonNode leased = api.post(q + "/receive", "{\"visibility_timeout\": \"1h\"}").json();
    String lease = leased.at("/messages/0/lease_id").asText();
    String dying = api.post(q + "/receive", "{}").json().at("/messages/0/lease_id").asText();
    Api.Reply dead = api.post(q + "/nack", "{\"lease_id\": \"" + dying + "\", \"dead\": true}");
    assertThat(dead.status()).as(dead.text()).isEqualTo(200);
    String deadId = api.get(q + "/dlq").json().at("/messages/0/id").asText();
    String ready = api.get(q + "/messages?state=ready").json().at("/messages/0/id").asText();
    assertThat(List.of(lease, deadId, ready)).doesNotContain("");
    return new NativeRoutes.Ids(queue, lease, ready, deadId);
  }

  /**
   * Each route's valid request, in an order where each still finds what it acts on, each sent
   * with a Content-Type api.md accepts (none, a form, a {@code +json} type, charset UTF-8).
   */
  static void validRequestsAreStillServed(
      KeepAliveClient client, RequestMutator mutator, List<Route> routes) {
    List<String> types = List.of("application/json", "application/x-www-form-urlencoded",
        "application/vnd.wharf+json", "application/json; charset=UTF-8");
    String[][] order = {
        {"queue list", "200"}, {"queue inspect", "200"}, {"browse", "200"},
        {"message get", "200"}, {"dlq list", "200"}, {"extend", "200"}, {"publish", "201"},
        {"publish text", "201"}, {"publish bytes", "201"}, {"publish batch", "201"},
        {"message delete", "204"}, {"ack", "200"}, {"redrive", "200"}, {"receive", "200"},
        {"queue put", "200"}, {"purge", "200"}, {"stream", "200"}, {"queue delete", "204"}};
    int n = 0;
    for (String[] step : order) {
      Route route = routes.stream().filter(r -> r.label().equals(step[0])).findFirst().get();
      WireRequest req = mutator.valid(route);
      if (req.body() != null) {
        req = req.withContentType(n % 5 == 4 ? null : types.get(n % 4));
        n++;
      }
      Reply r = client.send(req);
      assertThat(r.status()).as(req + " -> " + r.text()).isEqualTo(Integer.parseInt(step[1]));
      if (step[0].equals("extend") || step[0].equals("ack")) {
        assertThat(r.text()).contains(step[0].equals("ack") ? "\"acked\"" : "\"extended\"");
      }
      if (step[0].equals("publish")) {
        // Refused publishes left no trace: its idempotency key is new, its key finds the message.
        assertThat(r.text()).contains("\"duplicate\":false", "\"replaced\":true");
      }
      if (step[0].equals("publish batch")) {
        assertThat(r.text()).contains("\"duplicate\":true");
      }
      if (step[0].equals("redrive")) {
        assertThat(r.text()).contains("\"redriven\":1");
      }
      if (step[0].equals("receive")) {
        assertThat(r.text()).contains("\"lease_id\"");
      }
    }
  }
}
