package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MachineProbeTest {

  @Test
  void readsTheLoopAndTheSyncsAndLeavesNoFile(@TempDir Path dir) throws IOException {
    Result r = MachineProbe.take(dir);
    assertThat((Double) r.get("cpu_loop_ms")).isPositive();
    long p50 = (Long) r.get("sync_4k_p50_us");
    long p90 = (Long) r.get("sync_4k_p90_us");
    assertThat(p90).isGreaterThanOrEqualTo(p50);
    try (var left = Files.list(dir)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void aDirectoryThatIsNotThereIsAnError(@TempDir Path dir) {
    assertThatThrownBy(() -> MachineProbe.syncUs(dir.resolve("missing")))
        .isInstanceOf(IOException.class);
  }
}
