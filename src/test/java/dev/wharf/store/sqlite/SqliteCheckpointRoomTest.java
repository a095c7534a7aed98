package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.Delivery;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishes are refused while the disk has less room than the checkpoint needs to grow the
 * database file by the pages the WAL holds beyond its end ({@link CheckpointRoom}); everything
 * else goes on. Passive checkpoints run only when the test asks, so the WAL holds exactly what
 * the test published, and the disk's free space is the test's.
 */
class SqliteCheckpointRoomTest {
  @TempDir Path dir;
  private final AtomicLong free = new AtomicLong(1L << 30);
  private SqliteStore store;
  private Broker broker;

  @BeforeEach
  void start() {
    store = new SqliteStore(dir.resolve("wharf.db"));
    store.checkpointOnlyWhenAsked();
    // Off: what refuses publishes here is the checkpoint's room alone.
    store.diskFreeLimit(0);
    store.diskFreeFrom(free::get, () -> 0L);
    store.start();
    broker = new Broker(store, MutableClock.atEpochDay(), BrokerOptions.defaults(),
        new SimpleMeterRegistry());
    broker.startWithoutReapers();
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    store.checkpointNow();
    store.readRoom();
  }

  @AfterEach
  void stop() {
    broker.close();
    store.close();
  }

  @Test
  void publishesAreRefusedWhileTheDiskCannotTakeWhatTheCheckpointOwes() {
    assertThat(store.checkpointOwes()).isZero();
    broker.publish("q", SqliteFullDiskTest.batch(100));
    store.readRoom();
    long owed = store.checkpointOwes();
    // A hundred rows of 4 KB and more, in pages the database file does not have yet.
    assertThat(owed).isGreaterThan(100L * 4096);
    SimpleMeterRegistry scraped = new SimpleMeterRegistry();
    store.bindMetrics(scraped);
    assertThat(scraped.get("wharf_sqlite_checkpoint_owed_bytes").gauge().value())
        .isEqualTo((double) owed);

    free.set(owed - 1);
    store.readRoom();
    assertThatThrownBy(() -> broker.publish("q", SqliteFullDiskTest.batch(1)))
        .isInstanceOf(BrokerException.Unavailable.class)
        .hasMessageContaining("the checkpoint needs to copy the WAL into the database file");
    assertThat(broker.unready()).contains("the checkpoint needs");

    // What drains the disk goes on: a receive, an ack, a purge.
    List<Delivery> got = broker.receive("q", 1, Duration.ZERO, null);
    assertThat(got).hasSize(1);
    broker.settle().ack("q", List.of(got.get(0).leaseId()), false);
    assertThat(broker.purge("q")).isEqualTo(99);

    free.set(owed);
    store.readRoom();
    assertThat(broker.unready()).isNull();
    broker.publish("q", SqliteFullDiskTest.batch(1));
  }

  /** Once the checkpoint has copied the pages, nothing is owed, however little room is left. */
  @Test
  void aCheckpointThatCopiedThePagesPaysTheDebt() {
    broker.publish("q", SqliteFullDiskTest.batch(100));
    free.set(0);
    store.readRoom();
    assertThat(store.checkpointOwes()).isPositive();
    assertThat(broker.unready()).contains("the checkpoint needs");

    store.checkpointNow();
    store.readRoom();
    assertThat(store.checkpointOwes()).isZero();
    assertThat(broker.unready()).isNull();
    // What the disk then makes of the publish is the disk's to say.
    broker.publish("q", SqliteFullDiskTest.batch(1));
  }

  /**
   * Rows that reuse the database's free pages (a purge's) owe the checkpoint nothing: publishes
   * into the room a purge made are taken however full the disk.
   */
  @Test
  void rowsInPagesThePurgeFreedOweNothing() {
    broker.publish("q", SqliteFullDiskTest.batch(100));
    store.checkpointNow();
    broker.purge("q");
    store.checkpointNow();
    free.set(0);
    broker.publish("q", SqliteFullDiskTest.batch(50));
    store.readRoom();
    assertThat(store.checkpointOwes()).isZero();
    assertThat(broker.unready()).isNull();
  }
}
