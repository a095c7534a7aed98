package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteFloorBenchTest {
  @TempDir Path dir;

  @Test
  void insertsWholeCommitsIntoWharfsSchemaAndLeavesNoFileBehind() throws Exception {
    SqliteFloorBench.Floor f = SqliteFloorBench.measure(dir, 10, 0.2);

    assertThat(f.rows()).isPositive();
    assertThat(f.rows() % 10).isZero();
    assertThat(f.rowsPerSecond()).isPositive();
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).isEmpty();
    }
  }
}
