package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.http.Api.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An error that quotes the request stays text a strict JSON reader takes: half a surrogate pair
 * the client spelt as an escape is shown as its escape, not sent back as one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ErrorDetailTextTest {
  TestServer server;

  @BeforeAll
  void start(@TempDir Path dir) {
    server = new TestServer(dir);
    server.api.put("/v1/queues/q", "{}");
  }

  @AfterAll
  void stop() {
    server.close();
  }

  // Columns: path | body | what the detail shows
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          /v1/queues/q/receive  | {"\\ud800": 1}                 | unknown field "\\ud800"
          /v1/queues/q/messages | {"body": 1, "x\\udc00y": 1}    | unknown field "x\\udc00y"
          /v1/queues/q/messages | {"messages": [{"body": 1, "\\udbff": 1}]} | messages[0].\\udbff
          /v1/queues/q/ack      | {"\\ud800": 1, "\\ud800": 2}   | Duplicate field '\\ud800'
          /v1/queues/q/messages | {"body": 1, "\\ud83d\\ude00": 1} | unknown field "\uD83D\uDE00"
          """)
  void aQuotedHalfSurrogateIsShownAsItsEscape(String path, String body, String shown) {
    Reply r = server.api.post(path, body);
    assertThat(r.status()).as(r.text()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("invalid_body");
    assertThat(Utf8.loneSurrogate(r.detail())).as(r.text()).isEqualTo(-1);
    assertThat(r.detail()).contains(shown);
  }
}
