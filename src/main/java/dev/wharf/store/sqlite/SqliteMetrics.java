package dev.wharf.store.sqlite;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The meters of the embedded backend, apart from the store so that what an operator watches is
 * read in one place: the writer's commits and fsyncs, the checkpoints, and the leases in memory.
 */
final class SqliteMetrics {
  private SqliteMetrics() {}

  /**
   * Buckets of the WAL fsync's duration. Every durable answer (a publish's, not a settle's) waits
   * for one, most for one and a half, so its distribution is the floor under publish latency: a
   * healthy local disk syncs in 0.1-0.5 ms, a loaded or networked one in several.
   */
  private static final Duration[] FSYNC_BUCKETS = {
    Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
    Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
    Duration.ofMillis(25), Duration.ofMillis(100), Duration.ofMillis(500)
  };

  /**
   * The writer's commits and fsyncs, and the checkpoints: under a disk that cannot keep up, the
   * WAL restarts are where the writer waits (each held it 55-300 ms under batch publishes).
   */
  static void bind(
      MeterRegistry registry,
      GroupCommitWriter writer,
      Checkpointer checkpointer,
      MemoryLeases memoryLeases,
      DiskRoom room) {
    FunctionCounter.builder("wharf_sqlite_commits", writer, GroupCommitWriter::commits)
        .description("Transactions committed by the SQLite writer, each a group of writes")
        .register(registry);
    Timer fsyncs =
        stageTimer(
            registry,
            "wharf_sqlite_wal_fsync",
            "fsyncs of the WAL file; a publish is answered only after one");
    Timer queued =
        stageTimer(
            registry,
            "wharf_sqlite_write_queued",
            "Time the oldest write of each batch waited for the writer to start the batch");
    Timer ran =
        stageTimer(
            registry, "wharf_sqlite_batch", "The writer's batches: their writes and their commit");
    Timer madeDurable =
        stageTimer(
            registry,
            "wharf_sqlite_batch_durable",
            "From each batch's commit to the return of the WAL fsync that covers it");
    writer.observeStages(
        new WriterStages(
            nanos -> queued.record(nanos, TimeUnit.NANOSECONDS),
            nanos -> ran.record(nanos, TimeUnit.NANOSECONDS),
            nanos -> fsyncs.record(nanos, TimeUnit.NANOSECONDS),
            nanos -> madeDurable.record(nanos, TimeUnit.NANOSECONDS)));
    FunctionTimer.builder(
            "wharf_sqlite_checkpoint_pass",
            checkpointer,
            Checkpointer::passes,
            Checkpointer::passNanos,
            TimeUnit.NANOSECONDS)
        .description("Passive checkpoints, which copy the WAL back beside the writer")
        .register(registry);
    FunctionTimer.builder(
            "wharf_sqlite_wal_restart",
            checkpointer,
            Checkpointer::restarts,
            Checkpointer::restartNanos,
            TimeUnit.NANOSECONDS)
        .description(
            "WAL restart checkpoints, also those readers made give up; the writer waits for each")
        .register(registry);
    FunctionTimer.builder(
            "wharf_sqlite_db_fsync",
            checkpointer,
            Checkpointer::databaseSyncs,
            Checkpointer::databaseSyncNanos,
            TimeUnit.NANOSECONDS)
        .description(
            "fsyncs of the database file after the passive checkpoints that copied pages into it")
        .register(registry);
    Gauge.builder("wharf_sqlite_leases_in_memory", memoryLeases, MemoryLeases::size)
        .description(
            "Leases granted and not yet written to their rows (acked first, most never are)")
        .register(registry);
    FunctionCounter.builder(
            "wharf_sqlite_leases_written_back", memoryLeases, MemoryLeases::writtenBack)
        .description(
            "Leases written to their rows: held too long, due, or touched by other than an ack")
        .register(registry);
    Gauge.builder("wharf_sqlite_wal_frames", checkpointer, Checkpointer::walFrames)
        .description("Frames in the WAL as the last checkpoint saw them")
        .register(registry);
    // Read after every checkpoint pass; an alert on it rising toward the disk's free space comes
    // before the publishes it refuses.
    Gauge.builder("wharf_sqlite_checkpoint_owed_bytes", room, DiskRoom::checkpointOwes)
        .description("What the next checkpoint must grow the database file by (the WAL's pages"
            + " beyond its end); publishes are refused while the disk has less free")
        .baseUnit("bytes")
        .register(registry);
    // What /readyz says, for alerting from the scrapes: reads (and so every depth gauge) go on
    // answering while a full disk refuses every write.
    Gauge.builder(
            "wharf_sqlite_writes_failing", writer, w -> w.writeFailure() == null ? 0 : 1)
        .description("1 while writes fail: a full disk until a write is on disk again, a failed"
            + " fsync until a restart")
        .register(registry);
  }

  /**
   * A stage of the writes, in the buckets of the fsync: a slow publish or ack shows here whether
   * it waited for the writer, for the batch before it, or for the disk.
   */
  private static Timer stageTimer(MeterRegistry registry, String name, String description) {
    return Timer.builder(name)
        .description(description)
        .serviceLevelObjectives(FSYNC_BUCKETS)
        .register(registry);
  }
}
