package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.VisibleElsewhere;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The wake-up payload is read alike by nodes of this version and of earlier ones, which run side
 * by side while a cluster is upgraded one node at a time.
 */
class VisiblePayloadTest {
  private static final long NO_POLL_MS = 120_000;

  private final PostgresSettings settings = TestDatabase.freshSchema(4);
  private final String schema = TestDatabase.schemaOf(settings);
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    TestDatabase.dropSchema(schema);
  }

  private record Heard(String queue, int messages) {}

  @Test
  void aCountedPayloadNamesTheQueueWhereEarlierNodesLookForIt() throws Exception {
    PostgresStore a = started();
    Broker broker = new Broker(
        a, MutableClock.atEpochDay(), BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
    open.add(broker);
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    try (Connection raw = DriverManager.getConnection(settings.url())) {
      try (Statement s = raw.createStatement()) {
        s.execute("LISTEN " + PgNotifier.VISIBLE);
      }
      broker.publish("q", List.of(Publish.json("1"), Publish.json("2"), Publish.json("3")));
      String payload = next(raw.unwrap(PGConnection.class), schema + "|");
      // What a node of an earlier version did: the queue is all after the node's field.
      int nodeEnd = payload.indexOf('|', (schema + "|").length());
      assertThat(payload.substring(nodeEnd + 1)).isEqualTo("q");
      assertThat(payload).endsWith(":3|q");
    }
  }

  @Test
  void aNodeHearsCountedAndUncountedPayloadsAndSkipsItsOwn() throws Exception {
    PostgresStore b = started();
    BlockingQueue<Heard> heard = new LinkedBlockingQueue<>();
    b.onVisibleElsewhere(
        (q, messages, later) -> {
          if (later == null) {
            heard.add(new Heard(q, messages));
          }
        });
    String own = b.applicationName().substring("wharf-".length());
    try (Connection raw = DriverManager.getConnection(settings.url());
        PreparedStatement notify =
            raw.prepareStatement("SELECT pg_notify('" + PgNotifier.VISIBLE + "', ?)")) {
      // The listener connects on its own thread: until it has, a notification is lost.
      Heard first = null;
      for (int i = 0; i < 300 && first == null; i++) {
        send(notify, schema + "|ffff|old");
        first = heard.poll(100, TimeUnit.MILLISECONDS);
      }
      assertThat(first).isEqualTo(new Heard("old", VisibleElsewhere.UNKNOWN));
      heard.clear();
      send(notify, schema + "|" + own + ":7|mine");
      send(notify, schema + "|" + own + "|mine");
      send(notify, PgNotifier.visiblePayload(schema + "|ffff|", 250, "new"));
      assertThat(heard.poll(30, TimeUnit.SECONDS)).isEqualTo(new Heard("new", 250));
      assertThat(heard.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }
  }

  private PostgresStore started() {
    PostgresStore s = new PostgresStore(settings, NO_POLL_MS);
    s.start();
    open.add(s);
    return s;
  }

  private static void send(PreparedStatement notify, String payload) throws Exception {
    notify.setString(1, payload);
    notify.execute();
  }

  /** The next payload of this test's schema: the channel is the whole database's, shared. */
  private static String next(PGConnection pg, String schemaPrefix) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      PGNotification[] got = pg.getNotifications(1000);
      for (PGNotification n : got == null ? new PGNotification[0] : got) {
        if (n.getParameter().startsWith(schemaPrefix)) {
          return n.getParameter();
        }
      }
    }
    throw new AssertionError("no notification within 30 s");
  }
}
