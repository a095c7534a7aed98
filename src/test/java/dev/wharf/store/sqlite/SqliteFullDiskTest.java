package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettings;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.http.HttpSettings;
import dev.wharf.http.WharfHttp;
import dev.wharf.store.ContentType;
import dev.wharf.testing.SqliteBroker;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database that cannot grow (a full disk; here SQLite's page limit, which fails the same way,
 * with SQLITE_FULL): writes fail whole, and work again once there is room, without a restart.
 */
class SqliteFullDiskTest {
  @TempDir Path dir;
  private SqliteStore store;
  private Broker broker;

  private SqliteBroker open;

  @BeforeEach
  void start() {
    open = SqliteBroker.open(dir.resolve("wharf.db"));
    store = open.store();
    broker = open.broker();
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
  }

  @AfterEach
  void stop() {
    open.close();
  }

  /**
   * A purge gives the disk nothing back (SQLite keeps the pages it freed, for new rows), so the
   * room the publish limit counts takes them in ({@link DiskFreeLimit}): a server refusing
   * publishes for want of disk takes them again once a purge emptied its queues.
   */
  @Test
  void pagesAPurgeFreedCountAsRoom() {
    store.readRoom();
    long before = store.freePageBytes();
    broker.publish("q", batch(500));
    store.checkpointNow();
    broker.purge("q");
    store.checkpointNow();
    store.readRoom();
    assertThat(store.freePageBytes() - before).isGreaterThan(500L * 4096);
  }

  /** {@code n} publishes of 4 KB each: a few of them fill a small page limit. */
  static List<Publish> batch(int n) {
    List<Publish> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Publish(ContentType.BYTES, new byte[4096], Map.of(), null, null, null, null,
          null));
    }
    return out;
  }

  /** What the writer logs while it is open; {@link #close} stops listening. */
  private static final class WriterLog extends java.util.logging.Handler {
    private static final java.util.logging.Logger LOG =
        java.util.logging.Logger.getLogger(GroupCommitWriter.class.getName());
    final List<java.util.logging.LogRecord> records =
        new java.util.concurrent.CopyOnWriteArrayList<>();

    WriterLog() {
      LOG.addHandler(this);
    }

    @Override
    public void publish(java.util.logging.LogRecord r) {
      records.add(r);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      LOG.removeHandler(this);
    }
  }

  /** Lets the database grow by {@code pages} more pages than it has (0: no limit, -1: none). */
  private void room(long pages) {
    store.writer().submit(tx -> {
      try (Statement s = tx.conn.createStatement()) {
        long now;
        try (ResultSet rs = s.executeQuery("PRAGMA page_count")) {
          rs.next();
          now = rs.getLong(1);
        }
        s.execute("PRAGMA max_page_count = "
            + (pages == 0 ? 1_000_000_000L : pages < 0 ? now : now + pages));
      }
      return null;
    });
  }

  /**
   * A disk with room for small writes but not large ones fails and recovers again and again:
   * one outage's lines, not a start and an end for each.
   */
  @Test
  void aFlappingDiskIsNotLoggedOverAndOver() {
    broker.publish("q", batch(10));
    WriterLog capture = new WriterLog();
    List<java.util.logging.LogRecord> logged = capture.records;
    try {
      for (int i = 0; i < 3; i++) {
        room(-1);
        assertThatThrownBy(() -> broker.publish("q", batch(100)))
            .isInstanceOf(BrokerException.Unavailable.class);
        room(0);
        broker.publish("q", List.of(Publish.json("1")));
      }
    } finally {
      capture.close();
    }
    assertThat(logged).extracting(java.util.logging.LogRecord::getMessage)
        .hasSize(2)
        .last().isEqualTo("writes work again");
  }

  /** A scrape says that writes fail while they do, and stops once one is on disk again. */
  @Test
  void metricsSayWhileWritesFail() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    store.bindMetrics(registry);
    broker.publish("q", batch(10));
    assertThat(registry.scrape()).contains("wharf_sqlite_writes_failing 0.0");

    room(-1);
    assertThatThrownBy(() -> broker.publish("q", batch(100)))
        .isInstanceOf(BrokerException.Unavailable.class);
    assertThat(registry.scrape()).contains("wharf_sqlite_writes_failing 1.0");

    room(0);
    broker.publish("q", batch(1));
    assertThat(registry.scrape()).contains("wharf_sqlite_writes_failing 0.0");
  }

  @Test
  void writesFailWholeWhileFullAndWorkAgainWhenThereIsRoom() {
    broker.publish("q", batch(10));
    room(4);
    WriterLog capture = new WriterLog();
    List<java.util.logging.LogRecord> logged = capture.records;
    try {
      for (int i = 0; i < 3; i++) {
        // Each fails as a whole: none of its 100 messages is stored.
        assertThatThrownBy(() -> broker.publish("q", batch(100)))
            .isInstanceOf(BrokerException.Unavailable.class);
      }
      // One outage, one line that says what it is: not a trace for every write refused.
      assertThat(logged).hasSize(1);
      assertThat(logged.get(0).getThrown()).isNull();
      assertThat(logged.get(0).getMessage()).contains("the disk is full");
      assertThat(broker.browse("q", null, null, 0, 1000)).hasSize(10);

      room(0);
      broker.publish("q", batch(100));
      // And one when it ends.
      assertThat(logged).hasSize(2);
      assertThat(logged.get(1).getMessage()).isEqualTo("writes work again");
    } finally {
      capture.close();
    }
    broker.publish("q", List.of(Publish.json("1")));
    assertThat(broker.browse("q", null, null, 0, 1000)).hasSize(111);
    assertThat(broker.stats("q").counts().ready()).isEqualTo(111);
  }

  /**
   * Reads go on answering while every write fails, so readiness asks the writer too. With no
   * traffic to show that writes work again, readiness writes (and drops) a row of its own.
   */
  @Test
  void readinessSaysWhileWritesFailAndRecoversWithoutTraffic() throws Exception {
    broker.publish("q", batch(10));
    try (WharfHttp http = WharfHttp.start(broker,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), HttpSettings.defaults().withPort(0));
        HttpClient client = HttpClient.newHttpClient()) {
      HttpRequest readyz =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/readyz")).build();
      assertThat(client.send(readyz, HttpResponse.BodyHandlers.ofString()).statusCode())
          .isEqualTo(200);

      room(-1);
      assertThatThrownBy(() -> broker.publish("q", batch(100)))
          .isInstanceOf(BrokerException.Unavailable.class);
      for (int i = 0; i < 2; i++) {
        // Its own write fails as well: still not ready.
        HttpResponse<String> r = client.send(readyz, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).contains("\"unavailable\"").contains("storage writes are failing");
      }
      assertThat(broker.browse("q", null, null, 0, 1000)).hasSize(10);

      room(0);
      assertThat(client.send(readyz, HttpResponse.BodyHandlers.ofString()).statusCode())
          .isEqualTo(200);
      assertThat(store.unready()).isNull();
      broker.publish("q", batch(100));
      assertThat(broker.stats("q").counts().ready()).isEqualTo(110);
    }
  }

  /**
   * Config entries that need a write on a full disk do not stop the start: they wait, in order,
   * readiness names them, and they are applied once there is room.
   */
  @Test
  void configuredQueuesWaitForRoomAndAreAppliedOnceThereIs() {
    broker.publish("q", batch(10));
    room(-1);
    // Till no page of the queues' table and index has room left for one more.
    for (int i = 0; ; i++) {
      try {
        broker.putQueue("new-" + i, QueueSettingsPatch.EMPTY);
      } catch (BrokerException.Unavailable full) {
        break;
      }
      assertThat(i).isLessThan(10_000);
    }
    QueueSettingsPatch named = QueueSettingsPatch.EMPTY;
    assertThat(broker.applyConfiguredQueueWhenRoom("new", QueueSettings.defaultsFor("new"), named))
        .isFalse();
    assertThat(broker.applyConfiguredQueueWhenRoom("q", QueueSettings.defaultsFor("q"), named))
        .isFalse();
    assertThat(broker.queuesWaitingForRoom()).containsExactly("new", "q");
    assertThat(broker.unready())
        .contains("storage writes are failing")
        .endsWith("queues from the config file wait for room on the disk: new, q");
    assertThat(broker.queueNames()).doesNotContain("new");
    broker.applyQueuesWaitingForRoom();
    assertThat(broker.queuesWaitingForRoom()).containsExactly("new", "q");

    room(0);
    broker.applyQueuesWaitingForRoom();
    assertThat(broker.queuesWaitingForRoom()).isEmpty();
    assertThat(broker.queueNames()).contains("new", "q");
    assertThat(broker.unready()).isNull();
    // Applied now: an entry unchanged since needs no write, and goes in at once.
    room(-1);
    assertThat(broker.applyConfiguredQueueWhenRoom("new", QueueSettings.defaultsFor("new"), named))
        .isTrue();
  }

  /** A start that cannot even open the database on a full disk says that the disk is full. */
  @Test
  void aFailedOpenNamesTheFullDisk() {
    assertThat(SqliteFile.lowOnRoom(dir, 40_960))
        .isEqualTo("; the disk holding " + dir + " is full (40960 bytes free): free space there"
            + " and start again");
    assertThat(SqliteFile.lowOnRoom(dir, 1L << 30)).isEmpty();
  }
}
