package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.StorageFull;
import dev.wharf.store.StoreException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class PgWriteFailureTest {
  @Test
  void aFullDiskIsStorageFullWhereverItIsInTheCauses() {
    SQLException full = new SQLException("could not extend file: No space left on device", "53100");
    assertThat(PgWriter.writeFailed(full)).isInstanceOf(StorageFull.class)
        .hasMessage("write failed: could not extend file: No space left on device")
        .hasCause(full);
    RuntimeException wrapped = new RuntimeException("batch", full);
    assertThat(StorageFull.in(PgWriter.writeFailed(wrapped))).isTrue();
  }

  @Test
  void otherFailuresAreNot() {
    for (String state : new String[] {"53200", "53300", "23505", "08006", null}) {
      StoreException e = PgWriter.writeFailed(new SQLException("failed", state));
      assertThat(StorageFull.in(e)).as("SQLSTATE %s", state).isFalse();
      assertThat(e).hasMessage("write failed: failed");
    }
  }
}
