package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.StoreException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A start against a database that does not answer fails within about the stall timeout, saying
 * so, instead of waiting for it: an operator (or a supervisor restarting the node) learns why.
 */
class PgStartStallTest {
  private static final Duration STALL = Duration.ofSeconds(1);
  /** A login's bound, in whole seconds, a statement's, and a margin for a loaded machine. */
  private static final long BOUND_MS = 2 * STALL.toMillis() + 3000;

  private PostgresSettings direct;
  private TestDatabase.Relayed relayed;
  private PostgresStore store;

  @BeforeEach
  void relay() {
    direct = TestDatabase.freshSchema(2);
    relayed = TestDatabase.throughRelay(direct);
    store = new PostgresStore(new PostgresSettings(relayed.url(), direct.user(),
        direct.password(), 2, STALL));
  }

  @AfterEach
  void stop() {
    relayed.proxy().thaw();
    store.close();
    relayed.proxy().close();
    TestDatabase.dropSchema(TestDatabase.schemaOf(direct));
  }

  @Test
  void aDatabaseThatDoesNotAnswerTheLogin() {
    relayed.proxy().freeze();
    failsSayingSo();
  }

  @Test
  void aDatabaseThatLetsTheLoginThroughAndThenDoesNotAnswer() {
    // The first statement after the login: the session's settings.
    relayed.proxy().freezeAtStatement("tcp_keepalives_idle");
    failsSayingSo();
  }

  /** The last statement before the migrations, which may rightly take long, and so wait. */
  @Test
  void aDatabaseThatStopsAnsweringBeforeTheMigrations() {
    relayed.proxy().freezeAtStatement("pg_settings");
    failsSayingSo();
  }

  private void failsSayingSo() {
    long t0 = System.nanoTime();
    assertThatThrownBy(store::start)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("did not answer within 1000 ms")
        .satisfies(e -> assertThat(PgStall.timedOut(e)).isTrue());
    assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(BOUND_MS);
  }
}
