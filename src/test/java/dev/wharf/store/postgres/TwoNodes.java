package dev.wharf.store.postgres;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Two or more nodes on one fresh schema, any of them behind a relay that can freeze it as a node
 * stopped with SIGSTOP: what the frozen-node tests share. Closes what it opened, newest first,
 * then drops the schema.
 */
final class TwoNodes implements AutoCloseable {
  /** The server the schema is on. */
  final PgTestServer server;

  /** The schema, reached directly. */
  final PostgresSettings direct;

  private final List<AutoCloseable> open = new ArrayList<>();

  TwoNodes() {
    this(TestDatabase.server());
  }

  TwoNodes(PgTestServer server) {
    this.server = server;
    this.direct = server.freshSchema(2);
  }

  /** A relay in front of the schema's server, closed with the rest. */
  TestDatabase.Relayed relay() {
    TestDatabase.Relayed relayed = TestDatabase.throughRelay(direct);
    open.add(relayed.proxy());
    return relayed;
  }

  /** Settings that reach the schema through {@code relayed}, with their own stall timeout. */
  PostgresSettings through(TestDatabase.Relayed relayed, Duration stallTimeout) {
    return new PostgresSettings(
        relayed.url(), direct.user(), direct.password(), 2, stallTimeout);
  }

  /** A started node whose sessions the server ends after the idle bounds given. */
  PostgresStore node(PostgresSettings s, long reaperIdleMillis, long transactionIdleMillis) {
    PostgresStore store =
        new PostgresStore(s, PgNotifier.POLL_MS, reaperIdleMillis, transactionIdleMillis);
    store.start();
    open.add(store);
    return store;
  }

  @Override
  public void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    server.dropSchema(TestDatabase.schemaOf(direct));
  }
}
