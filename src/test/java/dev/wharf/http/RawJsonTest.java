package dev.wharf.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RawJsonTest {
  /** A payload under and one over the generator's 8000-byte buffer, with multi-byte text. */
  @ParameterizedTest
  @ValueSource(ints = {10, 20_000})
  void writesTheSameAsTheDecodedText(int pad) throws IOException {
    String value = "{\"a\":\"é€😀\",\"pad\":\"" + "x".repeat(pad) + "\",\"n\":[1,2.5,null]}";
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    String expected = "{\"before\":1,\"body\":" + value + ",\"after\":true}";

    assertEquals(expected, new String(viaBytes(new RawJson(utf8)), StandardCharsets.UTF_8));
    assertEquals(expected, viaChars(new RawJson(utf8)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"quoted \\\" text\"", "{\"k\":\"ü\"}"})
  void quotedFormsAreTheTextsEscaping(String value) {
    RawJson raw = new RawJson(value.getBytes(StandardCharsets.UTF_8));
    StringBuilder escaped = new StringBuilder();
    com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance().quoteAsString(value, escaped);
    assertEquals(escaped.toString(), new String(raw.asQuotedUTF8(), StandardCharsets.UTF_8));
    assertEquals(escaped.toString(), new String(raw.asQuotedChars()));
    assertEquals(value, raw.getValue());
    assertEquals(value.length(), raw.charLength());
  }

  private static byte[] viaBytes(RawJson raw) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = Json.FACTORY.createGenerator(out)) {
      write(g, raw);
    }
    return out.toByteArray();
  }

  private static String viaChars(RawJson raw) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = Json.FACTORY.createGenerator(out)) {
      write(g, raw);
    }
    return out.toString();
  }

  private static void write(JsonGenerator g, RawJson raw) throws IOException {
    g.writeStartObject();
    g.writeNumberField("before", 1);
    g.writeFieldName("body");
    g.writeRawValue(raw);
    g.writeBooleanField("after", true);
    g.writeEndObject();
  }
}
