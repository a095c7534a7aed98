package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.StoreException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every node keeps a connection for the reaper lock, holder or not: when an administrator ends
 * the sessions of all nodes, only the holder's log may say the reapers may move elsewhere, or
 * each node's log would read as if it had run them.
 */
class PgReaperLockLogTest {
  private final PostgresSettings settings = TestDatabase.freshSchema(2);
  private final Logger log = Logger.getLogger(PgReaperLock.class.getName());
  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          warnings.add(r.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private final PostgresStore a = new PostgresStore(settings, 120_000);
  private final PostgresStore b = new PostgresStore(settings, 120_000);

  @AfterEach
  void close() {
    log.removeHandler(capture);
    b.close();
    a.close();
    TestDatabase.dropSchema(TestDatabase.schemaOf(settings));
  }

  private static void pass(PostgresStore store) {
    store.leasesExpire(new LeaseExpiryRequest(Instant.EPOCH, 100,
        q -> new DeadLetterPolicy(0, null)));
  }

  private static void endLockSession(PostgresStore store) {
    assertThat(TestDatabase.query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
        + " WHERE application_name = '" + store.applicationName() + "'"
        // The holder's last statement may be its pass's; it is the one holding the lock.
        + " AND (query LIKE '%advisory_lock%'"
        + " OR pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory'))")).isEqualTo(1);
  }

  @Test
  void onlyTheHolderSaysAnotherNodeMayTakeTheReapersOver() {
    a.start();
    b.start();
    pass(a);
    pass(b);
    assertThat(a.reaperLockHeld()).isTrue();
    assertThat(b.reaperLockHeld()).isFalse();
    log.addHandler(capture);

    endLockSession(b);
    assertThatThrownBy(() -> pass(b)).isInstanceOf(StoreException.class);
    assertThat(warnings).containsExactly(
        "reaper connection lost (this node did not run the reapers)");

    warnings.clear();
    endLockSession(a);
    assertThatThrownBy(() -> pass(a)).isInstanceOf(StoreException.class);
    assertThat(warnings).containsExactly(
        "reaper connection lost; another node may take the reapers over");
  }
}
