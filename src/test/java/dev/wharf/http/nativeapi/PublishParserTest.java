package dev.wharf.http.nativeapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.Publish;
import dev.wharf.http.ApiError;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PublishParserTest {
  @Test
  void aJsonObjectOrArrayBodyIsKeptAsTheBytesSent() {
    String body = "{\"a\": [1, 2.50, \"x\\u00e9\", {\"b\": null}],  \"c\" : \"ü\"}";
    PublishParser.Parsed one = parse("{\"headers\": {\"h\": \"v\"}, \"body\": " + body + "}");

    assertThat(one.batch()).isFalse();
    assertThat(text(one.messages().get(0))).isEqualTo(body);
    assertThat(one.messages().get(0).headers()).containsEntry("h", "v");
  }

  @Test
  void aJsonStringBodyIsKeptAsSentAndTextTakesItDecoded() {
    String body = "\"caf\\u00e9 \\/ \\\"q\\\" \u00fc\"";
    assertThat(text(parse("{\"body\": " + body + "}").messages().get(0))).isEqualTo(body);
    assertThat(
            text(parse("{\"body\": " + body + ", \"content_type\": \"text\"}").messages().get(0)))
        .isEqualTo("caf\u00e9 / \"q\" \u00fc");
    PublishParser.Parsed b =
        parse("{\"messages\": [{\"body\": \"a\\nb\"}, {\"body\": " + body + "}]}");
    assertThat(b.messages()).extracting(PublishParserTest::text)
        .containsExactly("\"a\\nb\"", body);
  }

  @Test
  void metadataIsKeptAsSent() {
    String metadata = "{\"price\": 7.50, \"n\": 1E+2,\n \"t\": \"caf\\u00e9\"}";
    assertThat(parse("{\"body\": 1, \"metadata\": " + metadata + "}").messages().get(0).metadata())
        .isEqualTo(metadata);
    assertThat(parse("{\"metadata\": null, \"body\": 1}").messages().get(0).metadata()).isNull();
  }

  @Test
  void aTtlOfNullIsNoneWhereAnAbsentOneIsTheQueues() {
    assertThat(parse("{\"body\": 1, \"ttl\": null}").messages().get(0).ttl()).isZero();
    assertThat(parse("{\"body\": 1}").messages().get(0).ttl()).isNull();
  }

  @Test
  void aTextBodyIsAsLongAsTheBodyLimitAllowsNotAsTheJsonLibrarysDefault() {
    // 20,000,000 characters is the parser's own default cap on a string.
    String text = "x".repeat(20_000_001);
    PublishParser.Parsed p = parse("{\"body\": \"" + text + "\", \"content_type\": \"text\"}");
    assertThat(p.messages().get(0).payload()).hasSize(text.length());
  }

  @Test
  void batchBodiesAreKeptOneByOne() {
    PublishParser.Parsed b =
        parse("{\"messages\": [{\"body\": [1,2]}, {\"delay\": \"1s\", \"body\": {\"k\": 1}},"
            + " {\"body\": 7.50}, {\"body\": \"t\", \"content_type\": \"text\"}]}");

    assertThat(b.batch()).isTrue();
    assertThat(b.messages()).extracting(PublishParserTest::text)
        .containsExactly("[1,2]", "{\"k\": 1}", "7.50", "t");
    assertThat(b.messages().get(1).delay()).hasSeconds(1);
  }

  @Test
  void whatTheParserSkipsIsStillValidated() {
    byte[] badUtf8 = "{\"body\": {\"a\": \"\u00ff\u00ff\"}}".getBytes(StandardCharsets.ISO_8859_1);
    assertThat(error(badUtf8)).contains("malformed JSON");
    assertThat(error("{\"body\": {\"a\": \"\\q\"}}")).contains("malformed JSON");
    assertThat(error("{\"body\": {\"a\": 1, \"a\": 2}}")).contains("malformed JSON");
    assertThat(error("{\"body\": {\"a\": 1,}}")).contains("malformed JSON");
    assertThat(error("{\"body\": [1, 2}")).contains("malformed JSON");
    assertThat(error("{\"body\": {\"a\": 1}} {}")).contains("malformed JSON");
  }

  @Test
  void aStructuredBodyIsNoTextOrBytes() {
    assertThat(error("{\"body\": {\"a\": 1}, \"content_type\": \"text\"}")).contains("string");
    assertThat(error("{\"body\": [1], \"content_type\": \"bytes\"}")).contains("base64");
  }

  @Test
  void fieldsAreCheckedByPathAsBefore() {
    assertThat(error("{\"messages\": [{\"body\": 1}, {\"body\": 1, \"x\": 1}]}"))
        .contains("messages[1].x");
    assertThat(error("{\"messages\": [{\"body\": 1}], \"body\": 1}")).contains("\"body\"");
    assertThat(error("{\"messages\": [{}]}")).contains("messages[0].body is required");
    assertThat(error("{\"messages\": [1]}")).contains("messages[0] must be an object");
    assertThat(error("{\"messages\": {}}")).contains("messages must be an array");
    assertThat(error("[1]")).contains("must be a JSON object");
  }

  private static PublishParser.Parsed parse(String json) {
    return PublishParser.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(Publish p) {
    return new String(p.payload(), StandardCharsets.UTF_8);
  }

  private static String error(String json) {
    return error(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String error(byte[] json) {
    Throwable t = catchIt(json);
    assertThat(t).isInstanceOf(ApiError.class);
    assertThat(((ApiError) t).status()).isEqualTo(400);
    return ((ApiError) t).detail();
  }

  private static Throwable catchIt(byte[] json) {
    try {
      PublishParser.parse(json);
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("no error for " + new String(json, StandardCharsets.UTF_8));
  }
}
