package dev.wharf.http;

import static dev.wharf.http.BadValues.Field.optional;
import static dev.wharf.http.BadValues.Field.required;
import static dev.wharf.http.JsonPieces.arr;
import static dev.wharf.http.JsonPieces.obj;
import static dev.wharf.http.JsonPieces.raw;
import static dev.wharf.http.JsonPieces.str;

import dev.wharf.http.BadValues.Field;
import dev.wharf.http.JsonPieces.Obj;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every route of the native API with one valid request for it, made against the queue the test
 * sets up, and what docs/api.md says each of its fields and query parameters takes. A valid
 * request here would change the queue (a publish adds, a settle ends the lease, a PUT sets other
 * values): a mutation the server wrongly accepts shows in the queue's state.
 */
final class NativeRoutes {
  /** What the test's queue holds, by the ids the routes name. */
  record Ids(String queue, String lease, String readyMessage, String deadMessage) {}

  /**
   * @param path with the queue name as {@code {name}} and a message id as {@code {id}}
   * @param query the valid request's parameters, in order
   * @param badQuery for each parameter the route takes, values api.md refuses
   * @param body the valid request's body, null for none
   * @param fields the body's fields (of each entry, when {@code entries} names the array)
   */
  record Route(
      String label,
      String method,
      String path,
      Map<String, String> query,
      Map<String, List<String>> badQuery,
      Obj body,
      List<Field> fields,
      String entries) {

    boolean hasBody() {
      return body != null;
    }
  }

  private NativeRoutes() {}

  private static final List<String> BAD_LIMIT =
      List.of("0", "1001", "-1", "abc", "1.5", "1e3", "", "99999999999", "%ZZ", "%", "0x10");
  private static final List<String> BAD_AFTER =
      List.of("-1", "abc", "1.5", "99999999999999999999", "%ZZ", "1e3");

  static List<Route> all(Ids ids) {
    String leaseId = '"' + ids.lease() + '"';
    return List.of(
        route("queue put", "PUT", "/v1/queues/{name}",
            obj("visibility_timeout", str("45s"), "max_visibility_timeout", str("2h"),
                "max_attempts", raw("7"), "dead_letter_queue", str(ids.queue() + ".dlq"),
                "delay", str("1s"), "ttl", str("2d"), "consumer_tokens", arr()),
            List.of(
                optional("visibility_timeout", BadValues.duration(1, 7200)),
                optional("max_visibility_timeout", BadValues.duration(45, 7 * 86400)),
                optional("max_attempts", BadValues.integer(0, 1000)),
                optional("dead_letter_queue", BadValues.queueName(ids.queue())),
                optional("delay", BadValues.duration(0, 2 * 86400 - 1)),
                // "0s" is no ttl; any other must be longer than the delay of 1s.
                optional("ttl", BadValues.duration(0, 365 * 86400, "1s", "999ms")),
                optional("consumer_tokens", BadValues.tokens()))),
        withQuery("queue list", "/v1/queues", params("limit", "100", "after", ""),
            Map.of("limit", BAD_LIMIT, "after", List.of("%ZZ"))),
        noBody("queue inspect", "GET", "/v1/queues/{name}"),
        route("queue delete", "DELETE", "/v1/queues/{name}", obj(), List.of()),
        route("purge", "POST", "/v1/queues/{name}/purge", obj(), List.of()),
        route("publish", "POST", "/v1/queues/{name}/messages", oneMessage(), publishFields()),
        route("publish text", "POST", "/v1/queues/{name}/messages",
            obj("body", str("hello"), "content_type", str("text")),
            List.of(required("body", BadValues.textBody()))),
        route("publish bytes", "POST", "/v1/queues/{name}/messages",
            obj("body", str("aGk="), "content_type", str("bytes")),
            List.of(required("body", BadValues.bytesBody()))),
        new Route("publish batch", "POST", "/v1/queues/{name}/messages", Map.of(), Map.of(),
            obj("messages", arr(oneMessage(), obj("body", raw("[1,2]")))), publishFields(),
            "messages"),
        route("receive", "POST", "/v1/queues/{name}/receive",
            obj("max", raw("10"), "wait", str("2s"), "visibility_timeout", str("60s")),
            List.of(
                optional("max", BadValues.integer(1, 100)),
                optional("wait", BadValues.duration(0, 30)),
                optional("visibility_timeout", BadValues.duration(1, 12 * 3600)))),
        settle("ack", "ack", obj("lease_id", raw(leaseId)), List.of()),
        settle("ack batch", "ack", obj("lease_ids", arr(raw(leaseId))), List.of()),
        settle("nack", "nack",
            obj("lease_id", raw(leaseId), "delay", str("5s"), "reason", str("flaky")),
            List.of(optional("delay", BadValues.duration(0, 30 * 86400)),
                optional("reason", BadValues.text(0, 1024, true)))),
        settle("dead", "nack",
            obj("lease_ids", arr(raw(leaseId)), "dead", raw("true"), "reason", str("poison")),
            List.of(optional("reason", BadValues.text(0, 1024, true)),
                optional("dead", BadValues.bool()))),
        settle("defer", "defer", obj("lease_id", raw(leaseId), "delay", str("5s")),
            List.of(optional("delay", BadValues.duration(0, 30 * 86400)))),
        settle("extend", "extend", obj("lease_ids", arr(raw(leaseId)), "by", str("2h")),
            List.of(required("by", BadValues.duration(1, 12 * 3600)))),
        withQuery("browse", "/v1/queues/{name}/messages",
            params("state", "ready", "limit", "50", "after", "0"),
            Map.of("state", List.of("bogus", "READY", "", "dead", "ready,leased", "%ZZ"),
                "limit", BAD_LIMIT, "after", BAD_AFTER)),
        noBody("message get", "GET", "/v1/queues/{name}/messages/" + ids.readyMessage()),
        route("message delete", "DELETE", "/v1/queues/{name}/messages/" + ids.readyMessage(),
            obj(), List.of()),
        withQuery("dlq list", "/v1/queues/{name}/dlq", params("limit", "50", "after", "0"),
            Map.of("limit", BAD_LIMIT, "after", BAD_AFTER)),
        route("redrive", "POST", "/v1/queues/{name}/dlq/redrive",
            obj("ids", arr(str(ids.deadMessage()))),
            List.of(new Field("ids", BadValues.textList(1000, BadValues.text(0, 0, false)), false,
                true))),
        withQuery("stream", "/v1/queues/{name}/stream",
            params("max", "1", "visibility_timeout", "60s"),
            Map.of("max", List.of("0", "101", "-1", "abc", "1.5", "", "99999999999", "%ZZ"),
                "visibility_timeout",
                List.of("0s", "-1s", "13h", "abc", "", "999999999999d", "1.5s", "%ZZ"))));
  }

  private static Obj oneMessage() {
    return obj("body", obj("n", raw("1")), "content_type", str("json"),
        "headers", obj("x-a", str("b")), "metadata", obj("t", str("a")), "delay", str("0s"),
        "ttl", str("1h"), "idempotency_key", str("evt-1"), "key", str("k-1"));
  }

  private static List<Field> publishFields() {
    return List.of(
        new Field("body", BadValues.jsonBody(), true, false),
        optional("content_type", BadValues.contentType()),
        optional("headers", BadValues.headers()),
        optional("metadata", BadValues.metadata()),
        optional("delay", BadValues.duration(0, 3599)),
        // "0s" and null are documented as "no ttl": only what is refused outright.
        optional("ttl", BadValues.duration(0, 365 * 86400)),
        optional("idempotency_key", BadValues.text(1, 256, true)),
        optional("key", BadValues.text(1, 256, true)));
  }

  private static List<Field> leaseFields() {
    return List.of(
        required("lease_id", BadValues.text(1, 200, false).stream()
            // api.md: any 1-200 characters is a lease id, an unknown one a 409, not a 400.
            .filter(b -> !b.what().equals("NUL")).toList()),
        new Field("lease_ids", BadValues.textList(100, BadValues.text(1, 200, false)), true,
            true));
  }

  private static Route settle(String label, String action, Obj body, List<Field> extra) {
    List<Field> fields = new java.util.ArrayList<>(leaseFields());
    fields.addAll(extra);
    fields.removeIf(f -> body.get(f.name()) == null);
    return route(label, "POST", "/v1/queues/{name}/" + action, body, fields);
  }

  private static Route route(String label, String method, String path, Obj body, List<Field> f) {
    return new Route(label, method, path, Map.of(), Map.of(), body, f, null);
  }

  private static Route noBody(String label, String method, String path) {
    return new Route(label, method, path, Map.of(), Map.of(), null, List.of(), null);
  }

  private static Route withQuery(
      String label, String path, Map<String, String> query, Map<String, List<String>> bad) {
    return new Route(label, "GET", path, query, bad, null, List.of(), null);
  }

  private static Map<String, String> params(String... kv) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put(kv[i], kv[i + 1]);
    }
    return out;
  }
}
