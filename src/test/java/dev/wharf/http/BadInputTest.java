package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wharf.http.Api.Reply;
import dev.wharf.testing.RawHttp;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad client input: each case is a clear 4xx JSON error, never a 5xx, and leaves the queue as it
 * was. One server serves the whole table; the queue holds one leased and one ready message.
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

  // Columns: method | path | body ('' = empty, blank = none) | status | code | part of the detail
  @ParameterizedTest(name = "{0} {1} {2} -> {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # publish
          POST | /v1/queues/q/messages | {"body":                                  | 400 | invalid_body | malformed
          POST | /v1/queues/q/messages | {"body": 1} {"body": 2}                   | 400 | invalid_body |
          POST | /v1/queues/q/messages | {"body": 1, "body": 2}                    | 400 | invalid_body |
          POST | /v1/queues/q/messages | {"body": 1, "key": "a\\u0000b"}           | 400 | invalid_body | key must not contain the NUL character
          POST | /v1/queues/q/messages | {"body": 1, "idempotency_key": "\\u0000"} | 400 | invalid_body | idempotency_key must not contain the NUL character
          POST | /v1/queues/q/messages | {"body": 1, "bogus": 2}                   | 400 | invalid_body | "bogus"
          POST | /v1/queues/q/messages | {"messages": [{"body": 1, "x": 1}]}       | 400 | invalid_body | messages[0].x
          POST | /v1/queues/q/messages | {"messages": [{"body": 1}], "body": 1}    | 400 | invalid_body | "body"
          POST | /v1/queues/q/messages | {"messages": []}                          | 400 | invalid_body | got 0
          POST | /v1/queues/q/messages | {"messages": {}}                          | 400 | invalid_body | messages
          POST | /v1/queues/q/messages | {"messages": [1]}                         | 400 | invalid_body | messages[0]
          POST | /v1/queues/q/messages | {"messages": [{"body": 1}, {"body": 1, "delay": "40d"}]} | 400 | invalid_body | messages[1].delay must be between 0s and 30d, got 40d
          POST | /v1/queues/q/messages | {"messages": [{"body": 1}, {"body": 1, "delay": true}]} | 400 | invalid_body | messages[1].delay must be
          POST | /v1/queues/q/messages | {"messages": [{"body": 1, "ttl": "400d"}]} | 400 | invalid_body | messages[0].ttl must be between
          POST | /v1/queues/q/messages | {"messages": [{"body": 1}, {"body": 1, "key": ""}]} | 400 | invalid_body | messages[1].key must be 1 to 256 characters
          POST | /v1/queues/q/messages | {"messages": [{"body": 1}, {"body": 1, "idempotency_key": "\\u0000"}]} | 400 | invalid_body | messages[1].idempotency_key must not contain
          POST | /v1/queues/q/messages | {"messages": [{"body": 1}, {"body": 1, "content_type": "xml"}]} | 400 | invalid_body | messages[1].content_type
          POST | /v1/queues/q/messages | {}                                        | 400 | invalid_body | body is required
          POST | /v1/queues/q/messages | ''                                        | 400 | invalid_body | required
          POST | /v1/queues/q/messages | [1, 2]                                    | 400 | invalid_body | object
          POST | /v1/queues/q/messages | {"body": 1, "delay": true}                | 400 | invalid_body | delay
          POST | /v1/queues/q/messages | {"body": 1, "delay": "-5s"}               | 400 | invalid_body | delay must not be negative, got "-5s"
          POST | /v1/queues/q/messages | {"body": 1, "delay": "-soon"}             | 400 | invalid_body | delay is not a duration such as "30s": "-soon"
          # a value far above its field's range is told that range, as one just above it is
          POST | /v1/queues/q/messages | {"body": 1, "delay": "99999d"}            | 400 | invalid_body | delay must be between 0s and 30d, got 99999d
          POST | /v1/queues/q/messages | {"body": 1, "delay": "999999999999d"}     | 400 | invalid_body | delay must be between 0s and 30d, got more than 1000000000d
          POST | /v1/queues/q/messages | {"body": 1, "delay": "9999999999999999999999s"} | 400 | invalid_body | delay must be between 0s and 30d, got more than 1000000000d
          POST | /v1/queues/q/messages | {"body": 1, "delay": 9999999999999999999999} | 400 | invalid_body | delay must be between 0s and 30d, got more than 1000000000d
          POST | /v1/queues/q/messages | {"body": 1, "delay": "000000000000000000000031d"} | 400 | invalid_body | delay must be between 0s and 30d, got 31d
          POST | /v1/queues/q/messages | {"body": 1, "ttl": "3651d"}               | 400 | invalid_body | ttl must be between 1ms and 365d, got 3651d
          POST | /v1/queues/q/messages | {"body": 1, "delay": -1}                  | 400 | invalid_body | delay
          POST | /v1/queues/q/messages | {"body": 1, "delay": "31d"}               | 400 | invalid_body | delay
          POST | /v1/queues/q/messages | {"body": 1, "delay": "3s", "ttl": "2s"}    | 400 | invalid_body | delay (3s) must be shorter than ttl (2s): the message would expire before it became visible
          POST | /v1/queues/q/messages | {"messages": [{"body": 1, "delay": "2s", "ttl": "2s"}]} | 400 | invalid_body | messages[0].delay (2s) must be shorter than ttl (2s)
          POST | /v1/queues/q/messages | {"body": 1, "ttl": "soon"}                | 400 | invalid_body | ttl
          POST | /v1/queues/q/messages | {"body": 1, "headers": {"a": 1}}          | 400 | invalid_body | headers.a
          POST | /v1/queues/q/messages | {"body": 1, "headers": []}                | 400 | invalid_body | headers
          POST | /v1/queues/q/messages | {"body": 1, "metadata": "x"}              | 400 | invalid_body | metadata
          POST | /v1/queues/q/messages | {"body": 1, "content_type": "xml"}        | 400 | invalid_body | content_type
          POST | /v1/queues/q/messages | {"body": 1, "content_type": "text"}       | 400 | invalid_body | string
          POST | /v1/queues/q/messages | {"body": "***", "content_type": "bytes"}  | 400 | invalid_body | base64
          POST | /v1/queues/q/messages | {"body": 1, "idempotency_key": 5}         | 400 | invalid_body | idempotency_key
          POST | /v1/queues/q/messages | {"body": 1, "headers": {"": "v"}}         | 400 | invalid_body | headers: a header name must not be empty
          POST | /v1/queues/q/messages | {"body": 1, "headers": {"a\\u0000b": "c"}} | 400 | invalid_body | headers."a\\u0000b"
          POST | /v1/queues/q/messages | {"body": 1, "headers": {"a": "c\\u0000"}}  | 400 | invalid_body | headers.a: a header value
          POST | /v1/queues/q/messages | {"body": 1, "headers": {"a": "b\\nc"}}    | 400 | invalid_body | headers.a
          POST | /v1/queues/q/messages | {"messages": [{"body": 1, "headers": {"": "v"}}]} | 400 | invalid_body | messages[0].headers
          POST | /v1/queues/q/messages | {"messages": [{"body": 1}, {"body": 1, "headers": {"x\\u007f": "v"}}]} | 400 | invalid_body | messages[1].headers
          POST | /v1/queues/q/messages | {"body": NaN}                             | 400 | invalid_body | malformed JSON: NaN is not a JSON number at line 1, column
          # half a surrogate pair is not a character: stored it would read "?", and keys would merge
          POST | /v1/queues/q/messages | {"body": 1, "idempotency_key": "evt-\\ud800"} | 400 | invalid_body | idempotency_key holds half a surrogate pair (\\ud800)
          POST | /v1/queues/q/messages | {"body": 1, "key": "\\udfff"}             | 400 | invalid_body | key holds half a surrogate pair (\\udfff)
          POST | /v1/queues/q/messages | {"body": 1, "headers": {"x-\\ud800": "1"}} | 400 | invalid_body | headers holds half a surrogate pair
          POST | /v1/queues/q/messages | {"body": 1, "headers": {"x": "\\ud800"}}  | 400 | invalid_body | headers.x holds half a surrogate pair
          POST | /v1/queues/q/messages | {"body": 1, "metadata": {"a": ["\\udc00"]}} | 400 | invalid_body | metadata.a[0] holds half a surrogate pair
          POST | /v1/queues/q/messages | {"body": "ab\\ud800", "content_type": "text"} | 400 | invalid_body | body holds half a surrogate pair
          POST | /v1/queues/q/messages | {"messages": [{"body": 1}, {"body": 1, "key": "\\ud800x"}]} | 400 | invalid_body | messages[1].key holds half
          POST | /v1/queues/nope/messages | {"body": 1}                            | 404 | queue_not_found | nope
          # receive
          POST | /v1/queues/q/receive | {"max": 0}                                 | 400 | invalid_body | max must be between 1 and 100, got 0
          POST | /v1/queues/q/receive | {"max": 101}                               | 400 | invalid_body | max must be between 1 and 100, got 101
          POST | /v1/queues/q/receive | {"max": 1099511627776}                     | 400 | invalid_body | max is out of range, got 1099511627776
          POST | /v1/queues/q/receive | {"max": 1} {}                              | 400 | invalid_body | malformed JSON: more than one value
          POST | /v1/queues/q/receive | {"max": Infinity}                          | 400 | invalid_body | malformed JSON: Infinity is not a JSON number
          POST | /v1/queues/q/receive | {"max": "ten"}                             | 400 | invalid_body | max
          POST | /v1/queues/q/receive | {"max": 1.5}                               | 400 | invalid_body | max
          POST | /v1/queues/q/receive | {"max": 99999999999}                       | 400 | invalid_body | max
          POST | /v1/queues/q/receive | {"wait": "-1s"}                            | 400 | invalid_body | wait must not be negative, got "-1s"
          POST | /v1/queues/q/receive | {"wait": -1}                               | 400 | invalid_body | wait must not be negative, got -1
          POST | /v1/queues/q/receive | {"wait": 99999999999999999999999}          | 400 | invalid_body | wait must be between 0s and
          POST | /v1/queues/q/receive | {"wait": "31s"}                            | 400 | invalid_body | wait
          POST | /v1/queues/q/receive | {"wait": "99999999999d"}                   | 400 | invalid_body | wait must be between 0s and
          POST | /v1/queues/q/receive | {"visibility_timeout": "99999d"}           | 400 | invalid_body | visibility_timeout must be between 1s and 12h, got 99999d
          POST | /v1/queues/q/receive | {"visibility_timeout": "0s"}               | 400 | invalid_body | visibility_timeout
          POST | /v1/queues/q/receive | {"visibility_timeout": "13h"}              | 400 | invalid_body | visibility_timeout
          POST | /v1/queues/q/receive | {"maxx": 1}                                | 400 | invalid_body | maxx
          POST | /v1/queues/nope/receive | {}                                      | 404 | queue_not_found |
          # settle
          POST | /v1/queues/q/ack    | {}                                          | 400 | invalid_body | lease_id
          POST | /v1/queues/q/ack    | {"lease_id": "a", "lease_ids": ["b"]}       | 400 | invalid_body | either
          POST | /v1/queues/q/ack    | {"lease_ids": []}                           | 400 | invalid_body | lease_ids
          POST | /v1/queues/q/ack    | {"lease_ids": null}                         | 400 | invalid_body | give either lease_id or lease_ids
          POST | /v1/queues/q/ack    | {"lease_ids": "a"}                          | 400 | invalid_body | lease_ids
          POST | /v1/queues/q/ack    | {"lease_id": "a", "delay": "1s"}            | 400 | invalid_body | delay
          POST | /v1/queues/q/nack   | {"lease_id": "a", "dead": "yes"}            | 400 | invalid_body | dead
          POST | /v1/queues/q/nack   | {"lease_id": "a", "dead": true, "reason": "x\\u0000"} | 400 | invalid_body | reason must not contain the NUL character
          POST | /v1/queues/q/nack   | {"lease_id": "a", "delay": "-3s"}           | 400 | invalid_body | delay
          POST | /v1/queues/q/nack   | {"lease_id": "a", "delay": "99999d"}        | 400 | invalid_body | delay must be between 0s and 30d, got 99999d
          POST | /v1/queues/q/nack   | {"lease_id": "a", "dead": true, "delay": "1s"} | 400 | invalid_body | delay has no meaning with dead: true
          POST | /v1/queues/q/extend | {"lease_id": "a"}                           | 400 | invalid_body | by
          POST | /v1/queues/q/extend | {"lease_id": "a", "by": "0s"}               | 400 | invalid_body | by must be between 1s and 12h, got 0s
          POST | /v1/queues/q/extend | {"lease_id": "a", "by": "13h"}              | 400 | invalid_body | by must be between 1s and 12h, got 13h
          # queues and dead letters
          PUT  | /v1/queues/q        | {"visibility_timeout": "abc"}               | 400 | invalid_body | visibility_timeout
          PUT  | /v1/queues/q        | {"max_attempts": "5"}                       | 400 | invalid_body | max_attempts
          PUT  | /v1/queues/q        | {"max_attempts": -1}                        | 400 | invalid_body | max_attempts: must be between 0 (unlimited) and 1000, got -1
          PUT  | /v1/queues/q        | {"visibility_timeout": "0s"}                | 400 | invalid_body | visibility_timeout: must be at least 1s, got 0s
          PUT  | /v1/queues/q        | {"max_visibility_timeout": "8d"}            | 400 | invalid_body | max_visibility_timeout: must be at most 7d, got 8d
          PUT  | /v1/queues/q        | {"ttl": "400d"}                             | 400 | invalid_body | ttl: must be between 0s and 365d, got 400d
          PUT  | /v1/queues/q        | {"delay": "99999d"}                         | 400 | invalid_body | delay: must be between 0s and 30d, got 99999d
          PUT  | /v1/queues/q        | {"ttl": "99999999999999999999999999ms"}     | 400 | invalid_body | ttl: must be between 0s and 365d, got more than 1000000000d
          PUT  | /v1/queues/q        | {"max_visibility_timeout": "99999d"}        | 400 | invalid_body | max_visibility_timeout: must be at most 7d, got 99999d
          PUT  | /v1/queues/q        | {"visibility_timeout": "13h"}               | 400 | invalid_body | visibility_timeout: must be at most max_visibility_timeout (12h), got 13h
          PUT  | /v1/queues/q        | {"delay": "5s", "ttl": "5s"}                | 400 | invalid_body | delay: must be shorter than ttl (5s), got 5s
          PUT  | /v1/queues/q        | {"colour": "red"}                           | 400 | invalid_body | colour
          PUT  | /v1/queues/q        | {"consumer_tokens": [1]}                    | 400 | invalid_body | consumer_tokens
          PUT  | /v1/queues/q        | {"consumer_tokens": [" padded "]}           | 400 | invalid_body | consumer_tokens[0]: a token must not begin or end with a space
          PUT  | /v1/queues/q        | {"consumer_tokens": ["a\\u0001b"]}         | 400 | invalid_body | consumer_tokens[0]: a token must not hold control characters
          PUT  | /v1/queues/q        | {"dead_letter_queue": "q"}                  | 400 | invalid_body | dead_letter_queue
          PUT  | /v1/queues/bad%20name | {}                                        | 400 | invalid_queue_name | queue name in the path
          PUT  | /v1/queues/bad%20name | {"colour": "red"}                       | 400 | invalid_queue_name | queue name in the path
          PUT  | /v1/queues/          | {}                                         | 400 | invalid_queue_name | queue name in the path
          PUT  | /v1/queues/.         | {}                                         | 400 | invalid_queue_name | other than . and ..
          PUT  | /v1/queues/%2E%2E    | {}                                         | 400 | invalid_queue_name | other than . and ..
          POST | /v1/queues/q/dlq/redrive | {"ids": "all"}                         | 400 | invalid_body | ids
          POST | /v1/queues/q/dlq/redrive | {"ids": []}                            | 400 | invalid_body | leave ids out to redrive every
          POST | /v1/queues/q/dlq/redrive | {"ids": null}                          | 400 | invalid_body | leave ids out to redrive every
          # purge and the deletes take no fields: a body they cannot read deletes nothing
          POST | /v1/queues/q/purge  | {"x": 1}                                    | 400 | invalid_body | unknown field "x"
          POST | /v1/queues/q/purge  | {"force": false}                            | 400 | invalid_body | unknown field "force"
          POST | /v1/queues/q/purge  | {                                           | 400 | invalid_body | malformed
          POST | /v1/queues/q/purge  | garbage                                     | 400 | invalid_body | malformed
          POST | /v1/queues/q/purge  | []                                          | 400 | invalid_body | object
          POST | /v1/queues/q/purge  | null                                        | 400 | invalid_body | object
          POST | /v1/queues/q/purge  | "str"                                       | 400 | invalid_body | object
          POST | /v1/queues/q/purge  | {} {}                                       | 400 | invalid_body | malformed
          DELETE | /v1/queues/q      | {"x": 1}                                    | 400 | invalid_body | unknown field "x"
          DELETE | /v1/queues/q      | garbage                                     | 400 | invalid_body | malformed
          DELETE | /v1/queues/q/messages/01JNOPE | [1]                             | 400 | invalid_body | object
          # query parameters
          GET  | /v1/queues/q/messages?state=bogus |  | 400 | invalid_param | state
          GET  | /v1/queues/q/messages?limit=0     |  | 400 | invalid_param | limit
          GET  | /v1/queues/q/messages?limit=abc   |  | 400 | invalid_param | limit
          GET  | /v1/queues/q/messages?after=-1    |  | 400 | invalid_param | after
          GET  | /v1/queues/q/dlq?limit=5000       |  | 400 | invalid_param | limit
          GET  | /v1/queues/q/stream?visibility_timeout=-1s | | 400 | invalid_param | visibility_timeout must not be negative, got "-1s"
          GET  | /v1/queues/q/stream?visibility_timeout=99999d | | 400 | invalid_param | visibility_timeout must be between 1s and 12h, got 99999d
          GET  | /v1/queues/q/stream?max=abc       |  | 400 | invalid_param | max
          GET  | /v1/queues/q/stream?max=0         |  | 400 | invalid_param | max must be between 1 and 100, got 0
          GET  | /v1/queues/q/messages?foo=bar     |  | 400 | invalid_param | unknown query parameter "foo"
          GET  | /v1/queues/q/messages?state=leased&state=ready | | 400 | invalid_param | state is given more than once
          GET  | /v1/queues/q/dlq?limit=1&limit=2  |  | 400 | invalid_param | limit is given more than once
          GET  | /v1/queues/q/stream?bogus=1       |  | 400 | invalid_param | "bogus"
          GET  | /v1/queues/q?verbose=1            |  | 400 | invalid_param | "verbose"
          GET  | /v1/queues?x                      |  | 400 | invalid_param | "x"
          POST | /v1/queues/q/purge?force=1        | {} | 400 | invalid_param | "force"
          POST | /v1/queues/q/receive?max=5        | {} | 400 | invalid_param | "max"
          DELETE | /v1/queues/q?x=1                |  | 400 | invalid_param | "x"
          # routes
          GET    | /v1/queues/q/messages/01JNOPE |  | 404 | message_not_found |
          DELETE | /v1/queues/q/messages/01JNOPE |  | 404 | message_not_found |
          GET    | /v1/nothing/here              |  | 404 | not_found |
          DELETE | /v1/queues/q/receive          |  | 405 | method_not_allowed | POST
          PATCH  | /v1/queues/q                  | {} | 405 | method_not_allowed |
          GET    | /v1/queues/                   |  | 404 | queue_not_found | GET /v1/queues lists
          DELETE | /v1/queues/                   |  | 404 | queue_not_found | GET /v1/queues lists
          PUT    | /v1/queues/                   | {} | 400 | invalid_queue_name |
          POST   | /v1/queues//messages          | {"body": 1} | 404 | queue_not_found | segment is empty
          POST   | /v1/queues//receive           | {} | 404 | queue_not_found | segment is empty
          GET    | /v1/queues//dlq               |  | 404 | queue_not_found | segment is empty
          GET    | /v1/queues/q/messages/        |  | 404 | message_not_found | segment is empty
          DELETE | /v1/queues/q/messages/        |  | 404 | message_not_found | segment is empty
          GET    | /v1/queues/nope/messages/     |  | 404 | queue_not_found |
          """)
  void badInputIsAClearErrorAndChangesNothing(
      String method, String path, String body, int status, String code, String detail) {
    Reply r =
        body == null
            ? api.send(method, path, BodyPublishers.noBody(), null)
            : api.send(method, path, BodyPublishers.ofString(body), "application/json");
    assertError(r, status, code, detail);
  }

  @ParameterizedTest
  @CsvSource({
    // overlong "/", an encoded surrogate, past U+10FFFF, a lone continuation byte, cut short
    "'{\"body\": {\"a\": \"#C0#AF\"}}', 16",
    "'{\"body\": \"a#ED#A0#80\", \"content_type\": \"text\"}', 11",
    "'{\"body\": 1, \"headers\": {\"x\": \"#F4#90#80#80\"}}', 30",
    "'{\"body\": \"#80\"}', 10",
    "'{\"body\": \"#E2#82\"}', 10",
  })
  void aBodyThatIsNotUtf8IsRefusedWhole(String template, int at) {
    Reply r =
        api.send(
            "POST",
            "/v1/queues/q/messages",
            BodyPublishers.ofByteArray(bytes(template)),
            "application/json");
    assertError(r, 400, "invalid_body", "the body is not valid UTF-8 at byte " + at);
  }

  /** The template's ASCII, with each #XX the byte of that hex value. */
  private static byte[] bytes(String template) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (int i = 0; i < template.length(); i++) {
      char c = template.charAt(i);
      if (c == '#') {
        out.write(Integer.parseInt(template.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.write(c);
      }
    }
    return out.toByteArray();
  }

  @Test
  void aNacksReasonIsBoundedWhetherOrNotItIsDead() {
    String reason = "x".repeat(1025);
    for (String dead : List.of("", ", \"dead\": true")) {
      String body = "{\"lease_id\": \"a\", \"reason\": \"" + reason + "\"" + dead + "}";
      assertError(
          api.post("/v1/queues/q/nack", body),
          400,
          "invalid_body",
          "reason must be at most 1024 characters");
    }
    // 1024 characters, each outside the BMP (two UTF-16 units): within the bound.
    String wide = new String(Character.toChars(0x1F600)).repeat(1024);
    Reply within =
        api.post("/v1/queues/q/nack", "{\"lease_id\": \"a\", \"reason\": \"" + wide + "\"}");
    assertThat(within.status()).isNotEqualTo(400);
  }

  // Columns: method | path | the Allow header of its 405
  @ParameterizedTest(name = "{0} {1} -> Allow: {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          POST   | /healthz                | GET, HEAD
          PUT    | /v1/queues              | GET, HEAD
          POST   | /v1/queues/q            | PUT, GET, HEAD, DELETE
          POST   | /v1/queues/             | PUT, GET, HEAD, DELETE
          DELETE | /v1/queues/q/receive    | POST
          PUT    | /v1/queues/q/messages   | POST, GET, HEAD
          HEAD   | /v1/queues/q/stream     | GET
          """)
  void aMethodNotAllowedListsEveryMethodThePathTakesHeadWhereGetAnswersIt(
      String method, String path, String allow) {
    Reply r = api.send(method, path, BodyPublishers.noBody(), null);
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.raw().headers().allValues("allow")).containsExactly(allow);
    if (!method.equals("HEAD")) {
      assertThat(r.detail()).isEqualTo(method + " is not allowed here; use " + allow);
    }
  }

  @Test
  void aPublishWithNeitherALengthNorChunkedCodingHasNoBody() throws Exception {
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(
          s,
          "POST /v1/queues/q/messages HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
              + "Content-Type: application/json\r\n\r\n");
      assertThat(RawHttp.readAll(s))
          .startsWith("HTTP/1.1 400 ")
          .contains("\"invalid_body\"")
          .contains("required");
    }
  }

  @Test
  void aRangeErrorNamesTheFieldOfAMessageAloneAndOfABatchByItsIndex() {
    Reply one = api.post("/v1/queues/q/messages", "{\"body\": 1, \"delay\": \"40d\"}");
    assertError(one, 400, "invalid_body", null);
    assertThat(one.detail()).isEqualTo("delay must be between 0s and 30d, got 40d");
    Reply batch =
        api.post(
            "/v1/queues/q/messages",
            "{\"messages\": [{\"body\": 1}, {\"body\": 1, \"ttl\": \"400d\"}]}");
    assertError(batch, 400, "invalid_body", null);
    assertThat(batch.detail()).isEqualTo("messages[1].ttl must be between 1ms and 365d, got 400d");
  }

  @Test
  void aQueueSettingOutOfItsRangeIsToldAloneNotAlsoAgainstAnother() {
    // Out of its range, the delay is what to fix: that it is not shorter than the ttl is noise.
    Reply r = api.put("/v1/queues/q", "{\"delay\": \"40d\", \"ttl\": \"1s\"}");
    assertError(r, 400, "invalid_body", null);
    assertThat(r.detail()).isEqualTo("delay: must be between 0s and 30d, got 40d");
  }

  @Test
  void moreThanAHundredDistinctLeasesInOneSettle() {
    String ids =
        IntStream.range(0, 101)
            .mapToObj(i -> "\"" + i + ".0000000000000000\"")
            .collect(Collectors.joining(",", "[", "]"));
    assertError(
        api.post("/v1/queues/q/ack", "{\"lease_ids\": " + ids + "}"), 400, "invalid_body", "101");
  }

  @Test
  void bodyOverTheLimitIsRejectedByLengthAndWhenStreamed() {
    String big = "{\"body\": \"" + "x".repeat((int) TestServer.MAX_BODY) + "\"}";
    assertError(api.post("/v1/queues/q/messages", big), 413, "body_too_large", "limit");
    // No Content-Length: the body arrives chunked and is cut off while it is read.
    Reply chunked =
        api.send(
            "POST",
            "/v1/queues/q/messages",
            BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big.getBytes())),
            "application/json");
    assertError(chunked, 413, "body_too_large", "limit");
  }

  @Test
  void anAnswerThatClosesTheConnectionReachesAClientStillSendingItsBody() throws Exception {
    // A simple client sends the whole body before it reads: most of it comes after the answer,
    // and none of it is read.
    byte[] body = new byte[8 << 20];
    String[][] cases = {{"", "413 ", "body_too_large"}, {"Expect: tea\r\n", "417 ", "expect"}};
    for (String[] c : cases) {
      for (int i = 0; i < 5; i++) {
        try (Socket s = RawHttp.connect(server.http.port())) {
          OutputStream out = s.getOutputStream();
          out.write(
              ("POST /v1/queues/q/messages HTTP/1.1\r\nHost: t\r\n" + c[0]
                      + "Content-Length: " + body.length + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
          out.write(body);
          assertThat(RawHttp.readAll(s)).startsWith("HTTP/1.1 " + c[1]).contains(c[2]);
        }
      }
    }
  }

  @Test
  void aBodyThatIsNotJsonIsUnsupported() {
    Reply xml = posted("/v1/queues/q/messages", "<body>1</body>", "application/xml");
    assertError(xml, 415, "unsupported_media_type", "application/xml");
    Reply garbage = posted("/v1/queues/q/messages", "{}", "garbage");
    assertError(garbage, 415, "unsupported_media_type", "Content-Type");
    // A form body is read as JSON (curl -d labels everything a form), so a real form is a 400.
    Reply form = posted("/v1/queues/q/messages", "body=1", "application/x-www-form-urlencoded");
    assertError(form, 400, "invalid_body", "malformed");
    Reply utf16 =
        posted("/v1/queues/q/messages", "{\"body\": 1}", "application/json; charset=utf-16");
    assertError(utf16, 415, "unsupported_media_type", "JSON is read as UTF-8, not utf-16");
    // UTF-8 named is read (and then found wanting on its own account, leasing nothing).
    Reply utf8 =
        posted("/v1/queues/q/receive", "{\"max\": 0}", "application/json; charset=\"UTF-8\"");
    assertError(utf8, 400, "invalid_body", "max must be between 1 and 100");
  }

  /** A POST of {@code body} labelled {@code contentType}. */
  private Reply posted(String path, String body, String contentType) {
    return api.send("POST", path, BodyPublishers.ofString(body), contentType);
  }

  @Test
  void aCompressedBodyIsUnsupportedRatherThanMalformed() {
    Reply gzip =
        api.send(
            api.request("/v1/queues/q/messages")
                .header("Content-Type", "application/json")
                .header("Content-Encoding", "gzip")
                .POST(BodyPublishers.ofByteArray(new byte[] {0x1f, (byte) 0x8b, 8, 0}))
                .build());
    assertError(gzip, 415, "unsupported_media_type", "Content-Encoding gzip is not accepted");
  }

  @Test
  void purgeRefusesABodyItCannotReadAndPurgesNothing() {
    Reply text =
        api.send("POST", "/v1/queues/q/purge", BodyPublishers.ofString("hello"), "text/plain");
    assertError(text, 415, "unsupported_media_type", "text/plain");
    String big = "{\"x\": \"" + "x".repeat((int) TestServer.MAX_BODY) + "\"}";
    assertError(api.post("/v1/queues/q/purge", big), 413, "body_too_large", "limit");
    assertError(
        api.send(
            "DELETE", "/v1/queues/q", BodyPublishers.ofString("hello"), "text/plain"),
        415,
        "unsupported_media_type",
        "text/plain");
  }

  @Test
  void jsonErrorsNameNoParserInternals() {
    String deep = "{\"body\": " + "[".repeat(1200) + "]".repeat(1200) + "}";
    Reply nested = api.post("/v1/queues/q/messages", deep);
    assertError(nested, 400, "invalid_body", "JSON nested deeper than 1000 levels");
    assertError(
        api.post("/v1/queues/q/receive", "[".repeat(1200)),
        400,
        "invalid_body",
        "JSON nested deeper than 1000 levels");
    String[] bodies = {
      "{\"body\": NaN}", "{\"body\": -Infinity}", "{\"body\": +1}", "/* hi */ {\"body\": 1}",
      "{\"body\": 1", "{\"body\": 1} {}", "{\"body\": " + "1".repeat(1200) + "}", "{'body': 1}"
    };
    for (String body : bodies) {
      for (String route : new String[] {"/v1/queues/q/messages", "/v1/queues/q/receive"}) {
        Reply r = api.post(route, body);
        assertError(r, 400, "invalid_body", "JSON");
        assertThat(r.detail())
            .as(route + " " + body)
            .doesNotContain("`")
            .doesNotContain("Feature")
            .doesNotContain("Source")
            .doesNotContain("Jackson")
            .doesNotContain("com.fasterxml");
      }
    }
  }

  /** Requests no well-behaved client sends: whatever the answer, it is a 4xx, never a 5xx. */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          GET /v1/queues/q/messages?limit=%ZZ HTTP/1.1\\r\\nHost: t\\r\\n\\r\\n
          GET /v1/queues/%ZZ HTTP/1.1\\r\\nHost: t\\r\\n\\r\\n
          GET /v1/queues/q/messages/..%2f..%2fq HTTP/1.1\\r\\nHost: t\\r\\n\\r\\n
          POST /v1/queues/q/messages HTTP/1.1\\r\\nHost: t\\r\\nContent-Length: abc\\r\\n\\r\\n{}
          POST /v1/queues/q/messages HTTP/1.1\\r\\nHost: t\\r\\nContent-Length: -5\\r\\n\\r\\n{}
          POST /v1/queues/q/messages HTTP/1.1\\r\\nHost: t\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\nzz\\r\\n{}\\r\\n0\\r\\n\\r\\n
          GET /v1/queues/q HTTP/1.1\\r\\nHost: t\\r\\nAuthorization: Bearer\\r\\n\\r\\n
          """)
  void oddRequestsAreNeverServerErrors(String request) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.http.port())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write(request.replace("\\r\\n", "\r\n").getBytes(StandardCharsets.US_ASCII));
      String statusLine =
          new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))
              .readLine();
      assertThat(statusLine).isNotNull();
      int status = Integer.parseInt(statusLine.substring(9, 12));
      assertThat(status).as(statusLine).isLessThan(500);
    }
    assertError(api.get("/v1/queues/nope"), 404, "queue_not_found", null);
  }

  @Test
  void aMalformedEscapeInTheQueryIsABadParameterAndInThePathABadRequest() throws Exception {
    assertThat(raw("GET /v1/queues/q/messages?limit=%ZZ"))
        .startsWith("HTTP/1.1 400")
        .contains("\"code\":\"invalid_param\"", "the query string has a malformed %-escape");
    assertThat(raw("GET /v1/queues/%ZZ"))
        .startsWith("HTTP/1.1 400")
        .contains("\"code\":\"invalid_request\"", "malformed escape");
  }

  @Test
  void aVersionOfHttpOtherThanOneIsRefusedNotEchoed() throws Exception {
    assertThat(raw("GET /healthz", "HTTP/9.9"))
        .startsWith("HTTP/1.1 505")
        .contains("\"code\":\"http_version_not_supported\"");
    assertThat(raw("GET /healthz", "HTTP/1.0")).startsWith("HTTP/1.0 200");
  }

  private String raw(String requestLine) throws Exception {
    return raw(requestLine, "HTTP/1.1");
  }

  /** The whole answer to one request sent as it is, the connection closed after it. */
  private String raw(String requestLine, String version) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.http.port())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write((requestLine + " " + version + "\r\nHost: t\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private void assertError(Reply r, int status, String code, String detail) {
    assertThat(r.status()).as(r.text()).isEqualTo(status);
    assertThat(r.code()).as(r.text()).isEqualTo(code);
    assertThat(r.detail()).isNotBlank();
    if (detail != null) {
      assertThat(r.detail()).contains(detail);
    }
    JsonNode now = api.get("/v1/queues/q").json();
    assertThat(now.get("stats")).isEqualTo(statsBefore.get("stats"));
    assertThat(now.get("settings")).isEqualTo(statsBefore.get("settings"));
    assertThat(api.get("/v1/queues").json().get("queues")).hasSize(2);
  }
}
