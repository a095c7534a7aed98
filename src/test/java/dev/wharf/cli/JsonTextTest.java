package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
}
