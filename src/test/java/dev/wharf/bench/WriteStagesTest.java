package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class WriteStagesTest {
  private static final String BEFORE =
      """
      # HELP wharf_sqlite_batch_seconds The writer's batches
      # TYPE wharf_sqlite_batch_seconds histogram
      wharf_sqlite_batch_seconds_bucket{le="1.0E-4"} 1
      wharf_sqlite_batch_seconds_count 10
      wharf_sqlite_batch_seconds_sum 0.002
      wharf_sqlite_write_queued_seconds_count 10
      wharf_sqlite_write_queued_seconds_sum 0.001
      wharf_sqlite_batch_durable_seconds_count 8
      wharf_sqlite_batch_durable_seconds_sum 0.004
      wharf_sqlite_wal_fsync_seconds_count 5
      wharf_sqlite_wal_fsync_seconds_sum 0.0025
      """;

  private static final String AFTER =
      """
      wharf_sqlite_batch_seconds_count 2010
      wharf_sqlite_batch_seconds_sum 0.402
      wharf_sqlite_write_queued_seconds_count 2010
      wharf_sqlite_write_queued_seconds_sum 0.101
      wharf_sqlite_batch_durable_seconds_count 1008
      wharf_sqlite_batch_durable_seconds_sum 0.604
      wharf_sqlite_wal_fsync_seconds_count 1005
      wharf_sqlite_wal_fsync_seconds_sum 0.4025
      """;

  @Test
  void meansComeFromTheDifferenceOfCountsAndSums() {
    Result r = new Result("publish");
    String line =
        WriteStages.describe(WriteStages.parse(BEFORE), WriteStages.parse(AFTER), 2.0, r);

    assertThat(line)
        .isEqualTo(
            "server writes (means): queued 0.050 ms, batch 0.200 ms, commit to durable 0.600 ms,"
                + " fsync 0.400 ms, 1000 batches/s");
    assertThat(r.get("server_batch_mean_ms")).isEqualTo(0.2);
    assertThat(r.get("server_commit_to_durable_mean_ms")).isEqualTo(0.6);
    assertThat(r.get("server_batches_per_s")).isEqualTo(1000L);
  }

  @Test
  void aServerWithoutTheTimersGetsNoLine() {
    Map<String, Double> pg = WriteStages.parse("wharf_messages_published_total 5\n");
    assertThat(WriteStages.describe(pg, pg, 1.0, new Result("publish"))).isNull();
  }

  @Test
  void labelledSamplesAndCommentsAreNotUnlabelledSamples() {
    Map<String, Double> samples = WriteStages.parse(BEFORE);
    assertThat(samples)
        .containsEntry("wharf_sqlite_batch_seconds_count", 10.0)
        .doesNotContainKey("wharf_sqlite_batch_seconds_bucket")
        .hasSize(8);
  }
}
