package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CheckpointRoomTest {
  private final CheckpointRoom room = new CheckpointRoom(Path.of("/data"));

  @Test
  void theDebtIsThePagesBeyondTheFilesEnd() {
    room.read(300, 4096, 100L * 4096, 1L << 30);
    assertThat(room.owed()).isEqualTo(200L * 4096);
    assertThat(room.refusal()).isNull();
  }

  @Test
  void aFileLongerThanItsPagesOwesNothing() {
    // A checkpoint that wrote the last page before the commit that counts it was read.
    room.read(100, 4096, 101L * 4096, 0);
    assertThat(room.owed()).isZero();
    assertThat(room.refusal()).isNull();
  }

  @Test
  void publishesAreRefusedWhileTheDiskHasLessRoomThanTheDebtAndTakenAgainAfter() {
    room.read(300, 4096, 100L * 4096, 200L * 4096 - 1);
    assertThat(room.refusal())
        .startsWith("the disk holding /data has 0.8 MB free, less than the 0.8 MB the checkpoint"
            + " needs");
    room.read(300, 4096, 100L * 4096, 200L * 4096);
    assertThat(room.refusal()).isNull();
    room.read(300, 4096, 300L * 4096, 0);
    assertThat(room.refusal()).isNull();
  }
}
