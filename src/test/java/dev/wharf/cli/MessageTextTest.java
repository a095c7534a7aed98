package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MessageTextTest {
  @Test
  void cutsByCharactersNeverSplittingOneOutsideTheBmp() {
    String party = new String(Character.toChars(0x1F389));
    String s = "a".repeat(58) + party + party + "z";
    String cut = MessageText.cut(s, 60);
    assertThat(cut).isEqualTo("a".repeat(58) + party + "…");
    assertThat(cut.codePoints().filter(c -> c >= 0xD800 && c <= 0xDFFF)).isEmpty();
    assertThat(MessageText.cut("short", 60)).isEqualTo("short");
    assertThat(MessageText.cut("x".repeat(1024), 60)).hasSize(60).endsWith("…");
  }
}
