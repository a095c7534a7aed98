package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A writer lane whose connection is lost once its commit was sent cannot know whether the
 * server committed: its callers are told the write may have been stored, not that it failed.
 */
class PgCommitLostTest {
  private final PostgresSettings settings = TestDatabase.freshSchema(2);
  private final String schema = TestDatabase.schemaOf(settings);
  private PostgresStore store;
  private Broker broker;

  @AfterEach
  void close() {
    if (broker != null) {
      broker.close();
    }
    if (store != null) {
      store.close();
    }
    TestDatabase.dropSchema(schema);
  }

  @Test
  void aConnectionLostDuringTheCommitSaysTheWriteMayHaveBeenStored() {
    store = new PostgresStore(settings, 120_000);
    store.start();
    broker = new Broker(store, MutableClock.atEpochDay(), BrokerOptions.defaults(),
        new SimpleMeterRegistry());
    broker.startWithoutReapers();
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    // A deferred trigger runs inside COMMIT: the session ends there, after the commit was sent.
    PgTestServer db = TestDatabase.server();
    db.execute("CREATE FUNCTION " + schema + ".end_session() RETURNS trigger LANGUAGE plpgsql"
        + " AS $$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$");
    db.execute("CREATE CONSTRAINT TRIGGER end_in_commit AFTER INSERT ON " + schema + ".messages"
        + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE PROCEDURE "
        + schema + ".end_session()");

    assertThatThrownBy(() -> broker.publish("q", List.of(Publish.json("1"))))
        .isInstanceOf(BrokerException.Unavailable.class)
        .hasMessageContaining("lost during the commit, so the write may have been stored");

    db.execute("DROP TRIGGER end_in_commit ON " + schema + ".messages");
    broker.publish("q", List.of(Publish.json("2")));
    assertThat(TestDatabase.query("SELECT count(*) FROM " + schema + ".messages")).isEqualTo(1);
  }
}
