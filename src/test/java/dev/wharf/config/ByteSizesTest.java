package dev.wharf.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteSizesTest {
  @Test
  void sizesParseAndFormat() {
    assertThat(ByteSizes.parse("1MB")).isEqualTo(1 << 20);
    assertThat(ByteSizes.parse("512 kb")).isEqualTo(512 * 1024);
    assertThat(ByteSizes.parse("1GiB")).isEqualTo(1L << 30);
    assertThat(ByteSizes.parse("10")).isEqualTo(10);
    assertThat(ByteSizes.parse("10B")).isEqualTo(10);
    assertThatThrownBy(() -> ByteSizes.parse("1TB")).hasMessage("not a size: \"1TB\"");
    assertThatThrownBy(() -> ByteSizes.parse("-1")).hasMessage("not a size: \"-1\"");
    assertThat(ByteSizes.format(1 << 20)).isEqualTo("1MB");
    assertThat(ByteSizes.format(1536)).isEqualTo("1536B");
    assertThat(ByteSizes.format(3072)).isEqualTo("3KB");
  }
}
