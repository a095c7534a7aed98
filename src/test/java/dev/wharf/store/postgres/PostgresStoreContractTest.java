package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.Publish;
import dev.wharf.store.PublishResult;
import dev.wharf.store.Store;
import dev.wharf.store.StoreContract;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PostgresStoreContractTest extends StoreContract {
  /** The last test's schema, and the server it is on. */
  private static PgTestServer previousServer;
  private static String previousSchema;
  private PostgresSettings settings;

  /** The server the contract runs on; a subclass runs it on another. */
  PgTestServer server() {
    return TestDatabase.server();
  }

  @Override
  protected void freshDatabase() {
    // The last test's stores are closed by now: its schema can go.
    if (previousServer != null) {
      previousServer.dropSchema(previousSchema);
    }
    previousServer = server();
    settings = previousServer.freshSchema(6);
    previousSchema = TestDatabase.schemaOf(settings);
  }

  @Override
  protected Store openStore() {
    return new PostgresStore(settings);
  }
  @Test
  void aWriteWaitedForOnALanesOwnThreadFailsInsteadOfHanging() throws Exception {
    queue("q", null, null);
    CompletableFuture<List<PublishResult>> chained;
    try (Connection other =
        DriverManager.getConnection(settings.url(), settings.user(), settings.password())) {
      other.setAutoCommit(false);
      try (Statement st = other.createStatement()) {
        st.execute("LOCK TABLE \"" + TestDatabase.schemaOf(settings) + "\".messages IN EXCLUSIVE MODE");
      }
      // The publish waits on the lock, so what is chained to it runs on the lane's thread.
      chained =
          broker.publishAsync("q", List.of(Publish.json("1")))
              .thenApply(done -> broker.publish("q", List.of(Publish.json("2"))));
      other.rollback();
    }

    assertThat(chained)
        .failsWithin(10, TimeUnit.SECONDS)
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(IllegalStateException.class);
  }
}
