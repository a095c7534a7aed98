package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SqliteFloorBenchTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(SqliteFloorBench.Schema.class)
  void insertsWholeCommitsAndLeavesNoFileBehind(SqliteFloorBench.Schema schema) throws Exception {
    SqliteFloorBench.Floor f = SqliteFloorBench.measure(dir, 10, 0.2, schema, 8192);

    assertThat(f.rows()).isPositive();
    assertThat(f.rows() % 10).isZero();
    assertThat(f.rowsPerSecond()).isPositive();
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void namesTheSchemasItKnows() {
    assertThat(SqliteFloorBench.Schema.parse("plain")).isEqualTo(SqliteFloorBench.Schema.PLAIN);
    assertThatThrownBy(() -> SqliteFloorBench.Schema.parse("rowid"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wharf or plain");
  }
}
