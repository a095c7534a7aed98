package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of what happens when a deletion is given the room kept: the WAL restarted before the
 * deletion runs again, and the room read again before other writes may go on.
 */
class RoomForDeletionsTest {
  @TempDir Path dir;
  private final List<String> happened = new ArrayList<>();

  /** Room kept once, that says when it is given up and made again. */
  private final class Reserve extends RoomReserve {
    private boolean held = true;

    Reserve() {
      super(dir.resolve("wharf.db"), 0);
    }

    @Override
    boolean held() {
      return held;
    }

    @Override
    synchronized boolean ensure(boolean fromItsOwnRoom) {
      happened.add("kept again");
      return held;
    }

    @Override
    synchronized boolean release(Connection writer) {
      if (!held) {
        return false;
      }
      held = false;
      happened.add("given up");
      return true;
    }
  }

  private RoomForDeletions room(BetweenBatches restart) {
    return new RoomForDeletions(new Reserve(), restart, () -> happened.add("room read"));
  }

  @Test
  void theWalIsRestartedBeforeTheDeletionRunsAgainAndTheRoomReadBeforeOtherWrites() {
    RoomForDeletions room = room((conn, makingRoom) -> happened.add("restart " + makingRoom));
    room.makingRoom(() -> {
      assertThat(room.giveUp(null)).isTrue();
      assertThat(room.keptForDeletions()).isTrue();
      happened.add("deletion runs again");
      return null;
    });
    assertThat(happened).containsExactly(
        "given up", "restart true", "deletion runs again", "kept again", "room read");
    assertThat(room.keptForDeletions()).isFalse();
  }

  @Test
  void aRestartThatFailsLeavesTheDeletionItsRoom() {
    RoomForDeletions room = room((conn, makingRoom) -> {
      throw new SQLException("no room for the checkpoint");
    });
    room.makingRoom(() -> {
      assertThat(room.giveUp(null)).isTrue();
      assertThat(room.keptForDeletions()).isTrue();
      return null;
    });
    assertThat(happened).containsExactly("given up", "kept again", "room read");
  }

  @Test
  void noRoomToGiveRestartsNothing() {
    RoomForDeletions room = room((conn, makingRoom) -> happened.add("restart"));
    room.makingRoom(() -> {
      assertThat(room.giveUp(null)).isTrue();
      assertThat(room.giveUp(null)).isFalse();
      return null;
    });
    assertThat(happened).containsExactly("given up", "restart", "kept again", "room read");
  }
}
