package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.http.Api.Reply;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad client input: each case is a clear 4xx JSON error, never a 5xx, and leaves the queue as it
 * was. One server serves the whole table; the queue holds one leased message throughout.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {
  TestServer server;
  Api api;
  JsonNode statsBefore;

  @BeforeAll
  void start(@TempDir Path dir) {
    server = new TestServer(dir);
    api = server.api;
    api.put("/v1/queues/q", "{}");
    api.post("/v1/queues/q/messages", "{\"body\": 1}");
    api.post("/v1/queues/q/messages", "{\"body\": 2}");
    api.post("/v1/queues/q/receive", "{\"visibility_timeout\": \"1h\"}");
    statsBefore = api.get("/v1/queues/q").json();
  }

  @AfterAll
  void stop() {
    server.close();
  }

  static Stream<Arguments> cases() {
    String tooManyLeases =
        IntStream.range(0, 101)
            .mapToObj(i -> "\"" + i + ".0000000000000000\"")
            .collect(Collectors.joining(",", "[", "]"));
    return Stream.of(
        // publish
        c("POST", "/v1/queues/q/messages", "{\"body\":", 400, "invalid_body", "malformed"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1} {\"body\": 2}",
            400,
            "invalid_body",
            null),
        c("POST", "/v1/queues/q/messages", "{\"body\": 1, \"body\": 2}", 400, "invalid_body", null),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"bogus\": 2}",
            400,
            "invalid_body",
            "\"bogus\""),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"messages\": [{\"body\": 1, \"x\": 1}]}",
            400,
            "invalid_body",
            "messages[0].x"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"messages\": [{\"body\": 1}], \"body\": 1}",
            400,
            "invalid_body",
            "\"body\""),
        c("POST", "/v1/queues/q/messages", "{\"messages\": []}", 400, "invalid_body", "got 0"),
        c("POST", "/v1/queues/q/messages", "{\"messages\": {}}", 400, "invalid_body", "messages"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"messages\": [1]}",
            400,
            "invalid_body",
            "messages[0]"),
        c("POST", "/v1/queues/q/messages", "{}", 400, "invalid_body", "body is required"),
        c("POST", "/v1/queues/q/messages", "", 400, "invalid_body", "required"),
        c("POST", "/v1/queues/q/messages", "[1, 2]", 400, "invalid_body", "object"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"delay\": true}",
            400,
            "invalid_body",
            "delay"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"delay\": \"-5s\"}",
            400,
            "invalid_body",
            "delay"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"delay\": \"999999999999d\"}",
            400,
            "invalid_body",
            "delay"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"delay\": -1}",
            400,
            "invalid_body",
            "delay"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"delay\": \"31d\"}",
            400,
            "invalid_body",
            "delay"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"ttl\": \"soon\"}",
            400,
            "invalid_body",
            "ttl"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"headers\": {\"a\": 1}}",
            400,
            "invalid_body",
            "headers.a"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"headers\": []}",
            400,
            "invalid_body",
            "headers"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"metadata\": \"x\"}",
            400,
            "invalid_body",
            "metadata"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"content_type\": \"xml\"}",
            400,
            "invalid_body",
            "content_type"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"content_type\": \"text\"}",
            400,
            "invalid_body",
            "string"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": \"***\", \"content_type\": \"bytes\"}",
            400,
            "invalid_body",
            "base64"),
        c(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\": 1, \"idempotency_key\": 5}",
            400,
            "invalid_body",
            "idempotency_key"),
        c("POST", "/v1/queues/nope/messages", "{\"body\": 1}", 404, "queue_not_found", "nope"),
        // receive
        c("POST", "/v1/queues/q/receive", "{\"max\": 0}", 400, "invalid_body", "got 0"),
        c("POST", "/v1/queues/q/receive", "{\"max\": 101}", 400, "invalid_body", "got 101"),
        c("POST", "/v1/queues/q/receive", "{\"max\": \"ten\"}", 400, "invalid_body", "max"),
        c("POST", "/v1/queues/q/receive", "{\"max\": 1.5}", 400, "invalid_body", "max"),
        c("POST", "/v1/queues/q/receive", "{\"max\": 99999999999}", 400, "invalid_body", "max"),
        c("POST", "/v1/queues/q/receive", "{\"wait\": \"-1s\"}", 400, "invalid_body", "wait"),
        c("POST", "/v1/queues/q/receive", "{\"wait\": \"31s\"}", 400, "invalid_body", "wait"),
        c(
            "POST",
            "/v1/queues/q/receive",
            "{\"wait\": \"99999999999d\"}",
            400,
            "invalid_body",
            "wait"),
        c(
            "POST",
            "/v1/queues/q/receive",
            "{\"visibility_timeout\": \"0s\"}",
            400,
            "invalid_body",
            "visibility_timeout"),
        c(
            "POST",
            "/v1/queues/q/receive",
            "{\"visibility_timeout\": \"13h\"}",
            400,
            "invalid_body",
            "visibility_timeout"),
        c("POST", "/v1/queues/q/receive", "{\"maxx\": 1}", 400, "invalid_body", "maxx"),
        c("POST", "/v1/queues/nope/receive", "{}", 404, "queue_not_found", null),
        // settle
        c("POST", "/v1/queues/q/ack", "{}", 400, "invalid_body", "lease_id"),
        c(
            "POST",
            "/v1/queues/q/ack",
            "{\"lease_id\": \"a\", \"lease_ids\": [\"b\"]}",
            400,
            "invalid_body",
            "either"),
        c("POST", "/v1/queues/q/ack", "{\"lease_ids\": []}", 400, "invalid_body", "lease_ids"),
        c(
            "POST",
            "/v1/queues/q/ack",
            "{\"lease_ids\": " + tooManyLeases + "}",
            400,
            "invalid_body",
            "101"),
        c("POST", "/v1/queues/q/ack", "{\"lease_ids\": \"a\"}", 400, "invalid_body", "lease_ids"),
        c(
            "POST",
            "/v1/queues/q/ack",
            "{\"lease_id\": \"a\", \"delay\": \"1s\"}",
            400,
            "invalid_body",
            "delay"),
        c(
            "POST",
            "/v1/queues/q/nack",
            "{\"lease_id\": \"a\", \"dead\": \"yes\"}",
            400,
            "invalid_body",
            "dead"),
        c(
            "POST",
            "/v1/queues/q/nack",
            "{\"lease_id\": \"a\", \"delay\": \"-3s\"}",
            400,
            "invalid_body",
            "delay"),
        c("POST", "/v1/queues/q/extend", "{\"lease_id\": \"a\"}", 400, "invalid_body", "by"),
        c(
            "POST",
            "/v1/queues/q/extend",
            "{\"lease_id\": \"a\", \"by\": \"0s\"}",
            400,
            "invalid_body",
            "extend"),
        // queues
        c(
            "PUT",
            "/v1/queues/q",
            "{\"visibility_timeout\": \"abc\"}",
            400,
            "invalid_body",
            "visibility_timeout"),
        c("PUT", "/v1/queues/q", "{\"max_attempts\": \"5\"}", 400, "invalid_body", "max_attempts"),
        c("PUT", "/v1/queues/q", "{\"max_attempts\": -1}", 400, "invalid_body", "max_attempts"),
        c("PUT", "/v1/queues/q", "{\"colour\": \"red\"}", 400, "invalid_body", "colour"),
        c(
            "PUT",
            "/v1/queues/q",
            "{\"consumer_tokens\": [1]}",
            400,
            "invalid_body",
            "consumer_tokens"),
        c(
            "PUT",
            "/v1/queues/q",
            "{\"dead_letter_queue\": \"q\"}",
            400,
            "invalid_body",
            "dead_letter_queue"),
        c("PUT", "/v1/queues/bad%20name", "{}", 400, "invalid_body", "name"),
        c("POST", "/v1/queues/q/dlq/redrive", "{\"ids\": \"all\"}", 400, "invalid_body", "ids"),
        c("POST", "/v1/queues/q/dlq/redrive", "{\"ids\": []}", 400, "invalid_body", "ids"),
        // query parameters
        c("GET", "/v1/queues/q/messages?state=bogus", null, 400, "invalid_param", "state"),
        c("GET", "/v1/queues/q/messages?limit=0", null, 400, "invalid_param", "limit"),
        c("GET", "/v1/queues/q/messages?limit=abc", null, 400, "invalid_param", "limit"),
        c("GET", "/v1/queues/q/messages?after=-1", null, 400, "invalid_param", "after"),
        c("GET", "/v1/queues/q/dlq?limit=5000", null, 400, "invalid_param", "limit"),
        c(
            "GET",
            "/v1/queues/q/stream?visibility_timeout=-1s",
            null,
            400,
            "invalid_param",
            "visibility_timeout"),
        // routes
        c("GET", "/v1/queues/q/messages/01JNOPE", null, 404, "message_not_found", null),
        c("DELETE", "/v1/queues/q/messages/01JNOPE", null, 404, "message_not_found", null),
        c("GET", "/v1/nothing/here", null, 404, "not_found", null),
        c("DELETE", "/v1/queues/q/receive", null, 405, "method_not_allowed", "POST"),
        c("PATCH", "/v1/queues/q", "{}", 405, "method_not_allowed", null));
  }

  private static Arguments c(
      String method, String path, String body, int status, String code, String detail) {
    return Arguments.of(method, path, body, status, code, detail);
  }

  @ParameterizedTest(name = "{0} {1} {2} -> {3}")
  @MethodSource("cases")
  void badInputIsAClearErrorAndChangesNothing(
      String method, String path, String body, int status, String code, String detail) {
    Reply r =
        body == null
            ? api.send(method, path, BodyPublishers.noBody(), null)
            : api.send(method, path, BodyPublishers.ofString(body), "application/json");
    assertThat(r.status()).as(r.text()).isEqualTo(status);
    assertThat(r.code()).as(r.text()).isEqualTo(code);
    assertThat(r.detail()).isNotBlank();
    if (detail != null) {
      assertThat(r.detail()).contains(detail);
    }
    assertUnchanged();
  }

  @Test
  void bodyOverTheLimitIsRejectedByLengthAndWhenStreamed() {
    String big = "{\"body\": \"" + "x".repeat((int) TestServer.MAX_BODY) + "\"}";
    Reply declared = api.post("/v1/queues/q/messages", big);
    assertThat(declared.status()).isEqualTo(413);
    assertThat(declared.code()).isEqualTo("body_too_large");

    // No Content-Length: the body arrives chunked and is cut off while it is read.
    Reply chunked =
        api.send(
            "POST",
            "/v1/queues/q/messages",
            BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big.getBytes())),
            "application/json");
    assertThat(chunked.status()).isEqualTo(413);
    assertThat(chunked.code()).isEqualTo("body_too_large");
    assertUnchanged();
  }

  @Test
  void aBodyThatIsNotJsonIsUnsupported() {
    Reply r =
        api.send(
            "POST",
            "/v1/queues/q/messages",
            BodyPublishers.ofString("<body>1</body>"),
            "application/xml");
    assertThat(r.status()).isEqualTo(415);
    assertThat(r.code()).isEqualTo("unsupported_media_type");
    // A form body is read as JSON (curl -d labels everything a form), so a real form is a 400.
    Reply form =
        api.send(
            "POST",
            "/v1/queues/q/messages",
            BodyPublishers.ofString("body=1"),
            "application/x-www-form-urlencoded");
    assertThat(form.status()).isEqualTo(400);
    assertThat(form.code()).isEqualTo("invalid_body");
    assertUnchanged();
  }

  private void assertUnchanged() {
    JsonNode now = api.get("/v1/queues/q").json();
    assertThat(now.get("stats")).isEqualTo(statsBefore.get("stats"));
    assertThat(now.get("settings")).isEqualTo(statsBefore.get("settings"));
    assertThat(api.get("/v1/queues").json().get("queues")).hasSize(2);
  }
}
