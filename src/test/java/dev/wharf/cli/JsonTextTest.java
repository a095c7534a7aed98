package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTextTest {
  @Test
  void oneValueIsWhatTheServerAccepts() {
    assertThat(JsonText.isOneValue("{\"price\": 7.50, \"x\": 1e999999}")).isTrue();
    assertThat(JsonText.isOneValue(" 12345678901234567890123 \n")).isTrue();
    assertThat(JsonText.isOneValue("\"s\"")).isTrue();
    assertThat(JsonText.isOneValue("")).isFalse();
    assertThat(JsonText.isOneValue("  ")).isFalse();
    assertThat(JsonText.isOneValue("{} {}")).isFalse();
    assertThat(JsonText.isOneValue("{nope")).isFalse();
    assertThat(JsonText.isOneValue("{\"a\":1,\"a\":2}")).isFalse();
  }

  @Test
  void membersAreCopiedAsWritten() {
    String answer =
        "{\"messages\": [ {\"id\":\"a\",\"body\": {\"p\": 7.50, \"s\": \"}\\\"]\"} , \"n\":1E+2},"
            + "{\"id\":\"b\",\"body\":-0.0},{\"id\":\"c\",\"body\":\"t\\\"x\",\"m\":null}],"
            + " \"next\": 1e999999}";
    assertThat(JsonText.member(answer, "next")).isEqualTo("1e999999");
    assertThat(JsonText.member(answer, "none")).isNull();
    assertThat(JsonText.member("[1]", "next")).isNull();
    List<Map<String, String>> each = JsonText.membersOfEach(answer, "messages");
    assertThat(each).hasSize(3);
    assertThat(each.get(0))
        .containsEntry("id", "\"a\"")
        .containsEntry("body", "{\"p\": 7.50, \"s\": \"}\\\"]\"}")
        .containsEntry("n", "1E+2");
    assertThat(each.get(1)).containsEntry("body", "-0.0");
    assertThat(each.get(2)).containsEntry("body", "\"t\\\"x\"").containsEntry("m", "null");
    assertThat(JsonText.membersOfEach(answer, "next")).isEmpty();
  }

  @Test
  void prettyIndentsWithoutTouchingTokens() {
    String json = "{\"a\": 7.50,\"b\":[1E+2, {}, [ ]],\"c\":{\"d\":\"x, {y}: \\\"z\\\"\"}}";
    assertThat(JsonText.pretty(json))
        .isEqualTo(
            """
            {
              "a": 7.50,
              "b": [
                1E+2,
                {},
                []
              ],
              "c": {
                "d": "x, {y}: \\"z\\""
              }
            }""");
    assertThat(JsonText.pretty(" 1e999999 ")).isEqualTo("1e999999");
  }
}
