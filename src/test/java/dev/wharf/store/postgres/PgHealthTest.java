package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.StoreException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PgHealthTest {
  private final AtomicLong nanos = new AtomicLong(1_000);
  private final PgHealth health = new PgHealth(nanos::get);

  @Test
  void aRefusedConnectionMakesTheDatabaseKnownUnreachableUntilSomethingReachesIt() {
    assertThat(health.unreachable()).isNull();
    SQLException refused =
        new SQLException("Connection to 127.0.0.1:5432 refused.\nCheck that...", "08001");
    assertThat(health.failed(new StoreException("cannot connect to PostgreSQL", refused)))
        .isTrue();
    assertThat(health.unreachable()).isEqualTo("Connection to 127.0.0.1:5432 refused.");
    health.reached();
    assertThat(health.unreachable()).isNull();
  }

  @Test
  void aStallIsKnownLongerThanTheListenersNextTryTakes() {
    // The listener's next try after a stall: at most a second's pause, then a login the driver
    // bounds in whole seconds, rounded up (2 s for 1.001 s); room for a loaded machine besides.
    PostgresSettings justOverASecond = new PostgresSettings("jdbc:postgresql://h/d", null, null, 2,
        Duration.ofMillis(1001));
    assertThat(PgHealth.stallFreshFor(justOverASecond))
        .isGreaterThanOrEqualTo(1_000_000_000L + 2_000_000_000L + 500_000_000L);
    PostgresSettings tenSeconds = new PostgresSettings("jdbc:postgresql://h/d", null, null, 2,
        Duration.ofSeconds(10));
    assertThat(PgHealth.stallFreshFor(tenSeconds))
        .isGreaterThanOrEqualTo(1_000_000_000L + 10_000_000_000L + 500_000_000L);
  }

  @Test
  void whatIsKnownGoesStaleUnlessAFailureConfirmsIt() {
    health.failed(new SQLException("An I/O error occurred while sending to the backend.", "08006"));
    nanos.addAndGet(PgHealth.FRESH_NANOS);
    assertThat(health.unreachable()).isNotNull();
    health.failed(new SQLException("FATAL: the database system is shutting down", "57P03"));
    nanos.addAndGet(PgHealth.FRESH_NANOS);
    assertThat(health.unreachable()).startsWith("FATAL: the database system is shutting down");
    nanos.incrementAndGet();
    assertThat(health.unreachable()).isNull();
  }

  @Test
  void thePoolsTimeoutCountsOnlyWhenItCameFromAConnectionThatFailed() {
    SQLException refused = new SQLException("The connection attempt failed.", "08001");
    // A pool that waited for a connection none could make, and one all of whose are in use.
    assertThat(health.failed(new SQLTransientConnectionException("timed out", "08001", refused)))
        .isTrue();
    health.reached();
    assertThat(health.failed(new SQLTransientConnectionException("timed out", null, null)))
        .isFalse();
    assertThat(health.unreachable()).isNull();
  }

  @Test
  void aServerThatAnswersIsNotUnreachableWhateverItAnswers() {
    assertThat(health.failed(new SQLException("FATAL: sorry, too many clients", "53300")))
        .isFalse();
    assertThat(health.failed(new SQLException("FATAL: password authentication failed", "28P01")))
        .isFalse();
    assertThat(health.failed(new SQLException("ERROR: relation \"queues\" does not exist",
        "42P01"))).isFalse();
    assertThat(health.failed(new StoreException("store is closed"))).isFalse();
    assertThat(health.unreachable()).isNull();
  }
}
