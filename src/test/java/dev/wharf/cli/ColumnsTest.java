package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ColumnsTest {
  private static final String PARTY = new String(Character.toChars(0x1F389));

  @Test
  void countsWideCharactersTwiceAndMarksNotAtAll() {
    assertThat(Columns.of("abc")).isEqualTo(3);
    assertThat(Columns.of("注文")).isEqualTo(4);
    assertThat(Columns.of("한국")).isEqualTo(4);
    assertThat(Columns.of(PARTY)).isEqualTo(2);
    // "é" written as e and a combining acute accent is one column, as is a precomposed one.
    assertThat(Columns.of("e\u0301")).isEqualTo(1);
    assertThat(Columns.of("é")).isEqualTo(1);
  }

  @Test
  void cutsByColumnsNeverSplittingACharacter() {
    String s = "a".repeat(57) + PARTY + PARTY + "z";
    String cut = Columns.cut(s, 60);
    // 57 + 2 columns, and the second emoji does not fit before the ellipsis.
    assertThat(cut).isEqualTo("a".repeat(57) + PARTY + "…");
    assertThat(Columns.of(cut)).isEqualTo(60);
    assertThat(cut.codePoints().filter(c -> c >= 0xD800 && c <= 0xDFFF)).isEmpty();
    assertThat(Columns.cut("注".repeat(40), 60)).isEqualTo("注".repeat(29) + "…");
    assertThat(Columns.cut("short", 60)).isEqualTo("short");
    assertThat(Columns.cut("x".repeat(1024), 60)).hasSize(60).endsWith("…");
  }
}
