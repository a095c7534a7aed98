package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.ReapResult;
import dev.wharf.store.StoreException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes on one schema; the one running the reapers freezes (its relay stops forwarding, as a
 * node stopped with SIGSTOP stops reading): its session stays open, keepalives answered, yet the
 * other node takes the reapers over, and the frozen one stops acting as their holder once it
 * runs again.
 */
class PgFrozenReaperTest {
  /** The reaper session's idle bound here; a node's passes come far more often than this. */
  private static final long IDLE_MS = 2000;

  private static final LeaseExpiryRequest PASS = new LeaseExpiryRequest(
      Instant.ofEpochMilli(1_000_000), 100, q -> new DeadLetterPolicy(0, null));

  private TwoNodes nodes;

  @BeforeEach
  void schema() {
    nodes = new TwoNodes();
  }

  @AfterEach
  void closeAll() throws Exception {
    nodes.close();
  }

  private PostgresStore node(PostgresSettings s) {
    return nodes.node(s, IDLE_MS, PgSession.TRANSACTION_IDLE_MILLIS);
  }

  @Test
  void aFrozenHolderLosesTheReapersToAnotherNode() {
    TestDatabase.Relayed relayed = nodes.relay();
    PostgresStore a = node(nodes.through(relayed, nodes.direct.stallTimeout()));
    PostgresStore b = node(nodes.direct);
    assertThat(a.leasesExpire(PASS)).isEqualTo(ReapResult.NONE);
    assertThat(a.reaperLockHeld()).isTrue();
    assertThat(b.leasesExpire(PASS)).isEqualTo(ReapResult.NONE);
    assertThat(b.reaperLockHeld()).isFalse();
    MeterRegistry scrapeA = new SimpleMeterRegistry();
    MeterRegistry scrapeB = new SimpleMeterRegistry();
    a.bindMetrics(scrapeA);
    b.bindMetrics(scrapeB);
    assertThat(runsReapers(scrapeA)).isEqualTo(1);
    assertThat(runsReapers(scrapeB)).isZero();

    relayed.proxy().freeze();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      b.leasesExpire(PASS);
      if (b.reaperLockHeld()) {
        break;
      }
      assertThat(System.nanoTime()).as("the other node takes the reapers").isLessThan(deadline);
      LockSupport.parkNanos(100_000_000);
    }

    // A runs again: its pass fails on the session the server ended, or finds the lock taken.
    relayed.proxy().thaw();
    try {
      a.leasesExpire(PASS);
    } catch (StoreException expected) {
      // the session is gone
    }
    assertThat(a.reaperLockHeld()).isFalse();
    assertThat(a.leasesExpire(PASS)).isEqualTo(ReapResult.NONE);
    assertThat(a.reaperLockHeld()).isFalse();
    assertThat(b.reaperLockHeld()).isTrue();
    assertThat(runsReapers(scrapeA)).isZero();
    assertThat(runsReapers(scrapeB)).isEqualTo(1);
  }

  private static double runsReapers(MeterRegistry scraped) {
    return scraped.get("wharf_postgres_reapers_held").gauge().value();
  }
}
