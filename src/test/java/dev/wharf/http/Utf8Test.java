package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class Utf8Test {
  @ParameterizedTest
  @CsvSource({
    // well-formed: ASCII, and the first and last code point of each length
    "'41 7a 7e', -1",
    "'c2 80 df bf', -1",
    "'e0 a0 80 ed 9f bf ee 80 80 ef bf bf', -1",
    "'f0 90 80 80 f4 8f bf bf', -1",
    // overlong forms
    "'41 c0 af', 1",
    "'c1 bf', 0",
    "'e0 9f bf', 0",
    "'f0 8f bf bf', 0",
    // surrogates encoded, past U+10FFFF, bytes that never start a character
    "'ed a0 80', 0",
    "'ed bf bf', 0",
    "'f4 90 80 80', 0",
    "'f5 80 80 80', 0",
    "'ff', 0",
    "'41 80', 1",
    // cut short, or a continuation byte missing in the middle
    "'41 42 e2 82', 2",
    "'f0 90 80', 0",
    "'e2 41 ac', 0",
    "'f0 90 41 80', 0",
  })
  void firstInvalidFindsTheFirstByteThatIsNotWellFormedUtf8(String hex, int at) {
    String[] parts = hex.split(" ");
    byte[] b = new byte[parts.length];
    for (int i = 0; i < parts.length; i++) {
      b[i] = (byte) Integer.parseInt(parts[i], 16);
    }
    assertThat(Utf8.firstInvalid(b)).isEqualTo(at);
  }

  @ParameterizedTest
  @CsvSource({"caf\u00e9, -1", "a\ud83d\ude00b, -1", "ab\ud800, 2", "\udc00a, 0", "a\ud800b, 1"})
  void loneSurrogateFindsHalfAPair(String s, int at) {
    assertThat(Utf8.loneSurrogate(s)).isEqualTo(at);
  }

  @Test
  void everyStringJavaEncodesIsWellFormed() {
    String s = "plain caf\u00e9 \u20ac \ud83d\ude00 \uffff \u0000";
    assertThat(Utf8.firstInvalid(s.getBytes(StandardCharsets.UTF_8))).isEqualTo(-1);
  }
}
