package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DiskFreeLimitTest {
  private final AtomicLong free = new AtomicLong(1L << 30);
  private final AtomicLong nanos = new AtomicLong(1_000);
  private final DiskFreeLimit limit =
      new DiskFreeLimit(Path.of("/data"), 50L << 20, free::get, nanos::get);

  @Test
  void publishesAreRefusedBelowTheLimitAndTakenAgainAboveIt() {
    limit.check();
    assertThat(limit.refusal()).isNull();

    free.set(10L << 20);
    // Read at most every 100 ms: until then the last reading stands.
    assertThat(limit.refusal()).isNull();
    nanos.addAndGet(DiskFreeLimit.CHECK_EVERY_NANOS);
    assertThat(limit.refusal()).isEqualTo("the disk holding /data has 10.0 MB free (with the"
        + " database's free pages), less than storage.disk_free_limit (50.0 MB): publishes are"
        + " refused until it has more");

    free.set(60L << 20);
    assertThat(limit.refusal()).isNotNull();
    nanos.addAndGet(DiskFreeLimit.CHECK_EVERY_NANOS);
    assertThat(limit.refusal()).isNull();
  }

  @Test
  void aLimitOfZeroRefusesNothing() {
    DiskFreeLimit off = new DiskFreeLimit(Path.of("/data"), 0, () -> 0, nanos::get);
    off.check();
    nanos.addAndGet(DiskFreeLimit.CHECK_EVERY_NANOS);
    assertThat(off.refusal()).isNull();
  }
}
