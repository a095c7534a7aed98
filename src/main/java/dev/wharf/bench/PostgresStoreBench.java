package dev.wharf.bench;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.ContentType;
import dev.wharf.store.Delivery;
import dev.wharf.store.postgres.PostgresSettings;
import dev.wharf.store.postgres.PostgresStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Wharf's core over the PostgreSQL store, in process (no HTTP), under the same load as {@link
 * NaiveSkipLockedBench}: batch publish, receive+ack, both at once, single-message publish, and
 * the cross-node wake-up latency between two nodes on one schema.
 *
 * <p>{@code java -cp wharf-all.jar dev.wharf.bench.PostgresStoreBench url=jdbc:postgresql://...
 * clients=8 seconds=10 pool=8}
 */
public final class PostgresStoreBench {
  private PostgresStoreBench() {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = PgBenchLoad.args(argv, Map.of(
        "url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
        "clients", "8", "singles", "64", "seconds", "10", "batch", "100", "pool", "8",
        "schema", "wharf_bench", "wakeups", "500",
        "phases", "publish,consume,mixed,single,wakeup"));
    List<String> phases = List.of(a.get("phases").split(","));
    String url = a.get("url");
    String schema = a.get("schema");
    int clients = Integer.parseInt(a.get("clients"));
    int batch = Integer.parseInt(a.get("batch"));
    Duration time = Duration.ofSeconds(Long.parseLong(a.get("seconds")));
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      s.execute("CREATE SCHEMA " + schema);
    }
    PostgresSettings settings = new PostgresSettings(
        url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema, null, null,
        Integer.parseInt(a.get("pool")));
    try (PostgresStore store = new PostgresStore(settings);
        Broker broker = startBroker(store)) {
      broker.putQueue("q", QueueSettingsPatch.EMPTY);
      System.out.printf("Wharf on PostgreSQL: %d publishers, %d consumers, batch %d, %d B%n",
          clients, clients, batch, PgBenchLoad.PAYLOAD_BYTES);
      if (phases.contains("publish")) {
        long wal = walBytes(url);
        PgBenchLoad.Rates r = PgBenchLoad.run(clients, () -> publisher(broker, "q"), batch, 0,
            null, time, false);
        System.out.println("publish only:    " + r + walPerMessage(url, wal, r.published() * r.seconds()));
      }
      if (phases.contains("consume")) {
        long wal = walBytes(url);
        PgBenchLoad.Rates r = PgBenchLoad.run(0, null, batch, clients,
            () -> consumer(broker, "q", batch, Duration.ZERO), time, true);
        System.out.println("consume only:    " + r + walPerMessage(url, wal, r.consumed() * r.seconds()));
      }
      if (phases.contains("mixed")) {
        System.out.println("both at once:    " + PgBenchLoad.run(clients,
            () -> publisher(broker, "q"), batch, clients,
            () -> consumer(broker, "q", batch, Duration.ofSeconds(1)), time, false));
      }
      broker.purge("q");
      if (phases.contains("single")) {
        int singles = Integer.parseInt(a.get("singles"));
        System.out.println("single publish (" + singles + " publishers): " + PgBenchLoad.run(
            singles, () -> publisher(broker, "q"), 1, 0, null, time, false));
        broker.purge("q");
      }
      if (phases.contains("wakeup")) {
        wakeups(broker, settings, Integer.parseInt(a.get("wakeups")));
      }
    }
  }

  /** WAL written by the whole server so far (other databases' writes count too). */
  private static long walBytes(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String walPerMessage(String url, long before, double messages) throws Exception {
    return String.format(", WAL %,.0f B/msg", (walBytes(url) - before) / Math.max(1, messages));
  }

  private static Broker startBroker(PostgresStore store) {
    store.start();
    Broker b = new Broker(store, InstantSource.system(), BrokerOptions.defaults(),
        new SimpleMeterRegistry());
    b.start();
    return b;
  }

  private static PgBenchLoad.Publisher publisher(Broker broker, String queue) {
    byte[] payload = PgBenchLoad.payload();
    return n -> {
      List<Publish> batch = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        batch.add(new Publish(ContentType.BYTES, payload, null, null, null, null, null, null));
      }
      broker.publish(queue, batch);
    };
  }

  private static PgBenchLoad.Consumer consumer(Broker broker, String queue, int batch,
      Duration wait) {
    return () -> {
      List<Delivery> got = broker.receive(queue, batch, wait, null);
      if (got.isEmpty()) {
        return 0;
      }
      List<String> leases = new ArrayList<>(got.size());
      for (Delivery d : got) {
        leases.add(d.leaseId());
      }
      broker.settle().ack(queue, leases, false);
      return got.size();
    };
  }

  /** One message at a time through node A to a long-poll on node B: publish start to receipt. */
  private static void wakeups(Broker a, PostgresSettings settings, int n)
      throws Exception {
    Histogram h = new Histogram(60_000_000_000L, 3);
    a.putQueue("w", QueueSettingsPatch.EMPTY);
    try (PostgresStore storeB = new PostgresStore(settings);
        Broker b = startBroker(storeB)) {
      while (!b.queueNames().contains("w")) {
        Thread.sleep(10);
      }
      Thread consumer = Thread.ofPlatform().start(() -> {
        int seen = 0;
        while (seen < n) {
          for (Delivery d : b.receive("w", 1, Duration.ofSeconds(5), null)) {
            long now = System.nanoTime();
            h.recordValue(now - ByteBuffer.wrap(d.message().payload()).getLong());
            b.settle().ack("w", List.of(d.leaseId()), false);
            seen++;
          }
        }
      });
      for (int i = 0; i < n; i++) {
        // Give the consumer time to park again, so every message is a wake-up.
        Thread.sleep(10);
        byte[] payload = PgBenchLoad.payload();
        ByteBuffer.wrap(payload).putLong(System.nanoTime());
        a.publish("w", List.of(new Publish(ContentType.BYTES, payload, null, null, null, null,
            null, null)));
      }
      consumer.join(30_000);
    }
    System.out.printf(
        "cross-node wake-up (publish on A to receipt on B, %d messages): p50 %.1f ms,"
            + " p99 %.1f ms, max %.1f ms%n",
        h.getTotalCount(), h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6,
        h.getMaxValue() / 1e6);
  }
}
