package dev.wharf.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvInterpolationTest {
  private final EnvInterpolation env = new EnvInterpolation(Map.of("A", "1", "EMPTY", ""));

  @Test
  void replacesVariablesAndDefaults() {
    assertThat(env.apply("plain")).isEqualTo("plain");
    assertThat(env.apply("${A}")).isEqualTo("1");
    assertThat(env.apply("x${A}y${A}z")).isEqualTo("x1y1z");
    assertThat(env.apply("${B:-two}")).isEqualTo("two");
    assertThat(env.apply("${EMPTY:-dflt}")).isEqualTo("dflt");
    assertThat(env.apply("${EMPTY}")).isEmpty();
    assertThat(env.apply("${B:-}")).isEmpty();
    assertThat(env.apply("${B:-a:-b}")).isEqualTo("a:-b");
    assertThat(env.apply("cost $5")).isEqualTo("cost $5");
    assertThat(env.apply("$${A}")).isEqualTo("${A}");
  }

  @Test
  void namesWhatIsWrong() {
    assertThatThrownBy(() -> env.apply("${B}"))
        .hasMessage("environment variable B is not set (use ${B:-default})");
    assertThatThrownBy(() -> env.apply("${A")).hasMessage("unclosed \"${\" in \"${A\"");
    assertThatThrownBy(() -> env.apply("${1x}")).hasMessage("not a variable name: \"${1x}\"");
    assertThatThrownBy(() -> env.apply("${}")).hasMessage("not a variable name: \"${}\"");
  }
}
