package dev.wharf.store.postgres;

import dev.wharf.testing.TcpProxy;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL server tests run against: the one named by {@code WHARF_TEST_PG_URL} when set
 * (CI machines run one), else an embedded server from Maven Central started once per JVM. Each
 * caller gets its own fresh schema, so tests never see each other's rows.
 */
public final class TestDatabase {
  public static final String ENV = "WHARF_TEST_PG_URL";
  private static String baseUrl;
  private static EmbeddedPostgres embedded;
  private static final Set<String> created = ConcurrentHashMap.newKeySet();

  private TestDatabase() {}

  /** The server's JDBC URL, without a schema. Starts the embedded server on first use. */
  public static synchronized String baseUrl() {
    if (baseUrl == null) {
      String env = System.getenv(ENV);
      if (env != null && !env.isBlank()) {
        baseUrl = env.trim();
        // A shared server outlives the tests: leave no schemas behind on it.
        Runtime.getRuntime().addShutdownHook(new Thread(TestDatabase::dropCreated));
      } else {
        try {
          embedded = EmbeddedPostgres.builder().start();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
        baseUrl = embedded.getJdbcUrl("postgres", "postgres");
        Runtime.getRuntime().addShutdownHook(new Thread(TestDatabase::stopEmbedded));
      }
    }
    return baseUrl;
  }

  /** Creates an empty schema with a unique name and returns settings whose connections use it. */
  public static PostgresSettings freshSchema(int poolSize) {
    String schema = "wharf_t_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
    execute("CREATE SCHEMA " + schema);
    created.add(schema);
    return settingsFor(schema, poolSize);
  }

  /** Settings for an existing schema, e.g. to open a second node on it. */
  public static PostgresSettings settingsFor(String schema, int poolSize) {
    String url = baseUrl();
    String sep = url.contains("?") ? "&" : "?";
    return new PostgresSettings(url + sep + "currentSchema=" + schema, null, null, poolSize);
  }

  /** The schema a settings' URL points at. */
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

  public static String schemaOf(PostgresSettings s) {
    int i = s.url().lastIndexOf("currentSchema=");
    return s.url().substring(i + "currentSchema=".length());
  }

  public static void dropSchema(String schema) {
    if (schema != null && schema.toLowerCase(Locale.ROOT).startsWith("wharf_t_")) {
      execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      created.remove(schema);
    }
  }

  private static void dropCreated() {
    for (String schema : List.copyOf(created)) {
      try {
        dropSchema(schema);
      } catch (RuntimeException ignored) {
        // best effort at exit
      }
    }
  }

  /** The first column of the first row of a query, as an int. */
  static int query(String sql) {
    try (Connection c = DriverManager.getConnection(baseUrl());
        Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  private static void execute(String sql) {
    try (Connection c = DriverManager.getConnection(baseUrl());
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
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
