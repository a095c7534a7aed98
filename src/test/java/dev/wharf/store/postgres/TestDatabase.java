package dev.wharf.store.postgres;

import dev.wharf.testing.TcpProxy;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL server tests run against: the one named by {@code WHARF_TEST_PG_URL} when set
 * (CI machines run one), else an embedded server from Maven Central started once per JVM. Each
 * caller gets its own fresh schema ({@link PgTestServer}), so tests never see each other's rows.
 */
public final class TestDatabase {
  public static final String ENV = "WHARF_TEST_PG_URL";
  private static PgTestServer server;
  private static EmbeddedPostgres embedded;

  private TestDatabase() {}

  /** The server tests run against. Starts the embedded server on first use. */
  static synchronized PgTestServer server() {
    if (server == null) {
      String env = System.getenv(ENV);
      if (env != null && !env.isBlank()) {
        server = new PgTestServer(env.trim());
        // A shared server outlives the tests: leave no schemas behind on it.
        PgTestServer shared = server;
        Runtime.getRuntime().addShutdownHook(new Thread(shared::dropCreated));
      } else {
        try {
          embedded = EmbeddedPostgres.builder().start();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
        server = new PgTestServer(embedded.getJdbcUrl("postgres", "postgres"));
        Runtime.getRuntime().addShutdownHook(new Thread(TestDatabase::stopEmbedded));
      }
    }
    return server;
  }

  /** The server's JDBC URL, without a schema. Starts the embedded server on first use. */
  public static String baseUrl() {
    return server().baseUrl();
  }

  /** Creates an empty schema with a unique name and returns settings whose connections use it. */
  public static PostgresSettings freshSchema(int poolSize) {
    return server().freshSchema(poolSize);
  }

  /** Settings for an existing schema, e.g. to open a second node on it. */
  public static PostgresSettings settingsFor(String schema, int poolSize) {
    return server().settingsFor(schema, poolSize);
  }

  /** A relay in front of a test database, and the JDBC URL that reaches it through the relay. */
  public record Relayed(TcpProxy proxy, String url) {}

  /**
   * Puts a {@link TcpProxy} in front of the database {@code direct} names, for outages the test
   * makes without touching the database. The caller closes the proxy.
   */
  public static Relayed throughRelay(PostgresSettings direct) {
    Matcher m = Pattern.compile("^jdbc:postgresql://([^/:]+)(?::(\\d+))?/").matcher(direct.url());
    if (!m.find()) {
      throw new IllegalArgumentException("no host in " + direct.url());
    }
    TcpProxy proxy =
        new TcpProxy(m.group(1), m.group(2) == null ? 5432 : Integer.parseInt(m.group(2)));
    return new Relayed(proxy,
        "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + direct.url().substring(m.end()));
  }

  /** The schema a settings' URL points at. */
  public static String schemaOf(PostgresSettings s) {
    int i = s.url().lastIndexOf("currentSchema=");
    return s.url().substring(i + "currentSchema=".length());
  }

  public static void dropSchema(String schema) {
    server().dropSchema(schema);
  }

  /** The first column of the first row of a query, as an int. */
  static int query(String sql) {
    return server().query(sql);
  }

  private static synchronized void stopEmbedded() {
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException ignored) {
        // the JVM is exiting anyway
      }
    }
  }
}
