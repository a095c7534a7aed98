package dev.wharf.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The dequeue algorithm of a plain PostgreSQL job queue (the queue-ti model, spec 002), driven
 * over JDBC with the same load as Wharf so the two can be compared on one database: each claim is
 * one {@code UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED LIMIT n)} in its own
 * transaction, each ack one {@code DELETE} committed alone, a batch publish one transaction of
 * single-row inserts, and idle consumers poll every 100 ms.
 *
 * <p>{@code java -cp wharf-all.jar dev.wharf.bench.NaiveSkipLockedBench url=jdbc:postgresql://...
 * clients=8 seconds=10}
 */
public final class NaiveSkipLockedBench {
  private static final String TOPIC = "bench";

  private NaiveSkipLockedBench() {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = PgBenchLoad.args(argv, Map.of(
        "url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
        "clients", "8", "seconds", "10", "batch", "100", "schema", "naive_bench"));
    String url = a.get("url");
    String schema = a.get("schema");
    int clients = Integer.parseInt(a.get("clients"));
    int batch = Integer.parseInt(a.get("batch"));
    Duration time = Duration.ofSeconds(Long.parseLong(a.get("seconds")));
    setUp(url, schema);
    String schemaUrl = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    System.out.printf("naive SKIP LOCKED: %d publishers, %d consumers, batch %d, %d B%n",
        clients, clients, batch, PgBenchLoad.PAYLOAD_BYTES);
    PgBenchLoad.Rates pub = PgBenchLoad.run(clients, () -> publisher(schemaUrl), batch, 0,
        null, time, false);
    System.out.println("publish only:    " + pub);
    PgBenchLoad.Rates con = PgBenchLoad.run(0, null, batch, clients,
        () -> consumer(schemaUrl, batch), time, true);
    System.out.println("consume only:    " + con);
    PgBenchLoad.Rates mixed = PgBenchLoad.run(clients, () -> publisher(schemaUrl), batch,
        clients, () -> consumer(schemaUrl, batch), time, false);
    System.out.println("both at once:    " + mixed);
  }

  private static void setUp(String url, String schema) throws Exception {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      s.execute("CREATE SCHEMA " + schema);
      s.execute("SET search_path = " + schema);
      s.execute("""
          CREATE TABLE messages(
            id uuid PRIMARY KEY,
            topic text NOT NULL,
            payload bytea NOT NULL,
            metadata jsonb,
            key text,
            status text NOT NULL DEFAULT 'pending',
            retry_count int NOT NULL DEFAULT 0,
            max_retries int NOT NULL DEFAULT 3,
            last_error text,
            visibility_timeout timestamptz,
            expires_at timestamptz,
            original_topic text,
            dlq_moved_at timestamptz,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now())
          """);
      s.execute("CREATE INDEX messages_dequeue"
          + " ON messages(topic, status, visibility_timeout, created_at)");
      s.execute("CREATE UNIQUE INDEX messages_key ON messages(topic, key)"
          + " WHERE key IS NOT NULL AND status = 'pending'");
    }
  }

  private static PgBenchLoad.Publisher publisher(String url) throws Exception {
    Connection c = DriverManager.getConnection(url);
    c.setAutoCommit(false);
    PreparedStatement insert = c.prepareStatement(
        "INSERT INTO messages(id, topic, payload, max_retries, expires_at)"
            + " VALUES (?, ?, ?, 3, NULL)");
    byte[] payload = PgBenchLoad.payload();
    return new PgBenchLoad.Publisher() {
      @Override
      public void publish(int n) throws Exception {
        for (int i = 0; i < n; i++) {
          insert.setObject(1, UUID.randomUUID());
          insert.setString(2, TOPIC);
          insert.setBytes(3, payload);
          insert.executeUpdate();
        }
        c.commit();
      }

      @Override
      public void close() throws Exception {
        c.close();
      }
    };
  }

  private static PgBenchLoad.Consumer consumer(String url, int batch) throws Exception {
    Connection c = DriverManager.getConnection(url);
    c.setAutoCommit(true);
    PreparedStatement claim = c.prepareStatement(
        "UPDATE messages SET status = 'processing',"
            + " visibility_timeout = now() + interval '30 seconds', updated_at = now()"
            + " WHERE id IN (SELECT id FROM messages WHERE topic = ? AND status = 'pending'"
            + " AND (visibility_timeout IS NULL OR visibility_timeout <= now())"
            + " AND retry_count <= max_retries"
            + " AND (expires_at IS NULL OR expires_at > now())"
            + " ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)"
            + " RETURNING id, payload");
    PreparedStatement ack = c.prepareStatement(
        "DELETE FROM messages WHERE id = ? AND status = 'processing'");
    return new PgBenchLoad.Consumer() {
      @Override
      public int consume() throws Exception {
        claim.setString(1, TOPIC);
        claim.setInt(2, batch);
        List<UUID> ids = new ArrayList<>(batch);
        try (ResultSet rs = claim.executeQuery()) {
          while (rs.next()) {
            ids.add(rs.getObject(1, UUID.class));
            rs.getBytes(2);
          }
        }
        if (ids.isEmpty()) {
          Thread.sleep(100);
          return 0;
        }
        for (UUID id : ids) {
          ack.setObject(1, id);
          ack.executeUpdate();
        }
        return ids.size();
      }

      @Override
      public void close() throws Exception {
        c.close();
      }
    };
  }
}
