package dev.wharf.store.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One PostgreSQL server tests run against, and the schemas they made on it: the usual one
 * ({@link TestDatabase}) or an older release ({@link OlderPostgres}). Each caller gets its own
 * fresh schema, so tests never see each other's rows.
 */
final class PgTestServer {
  private final String baseUrl;
  private final Set<String> created = ConcurrentHashMap.newKeySet();

  PgTestServer(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  /** The server's JDBC URL, without a schema. */
  String baseUrl() {
    return baseUrl;
  }

  /** Creates an empty schema with a unique name and returns settings whose connections use it. */
  PostgresSettings freshSchema(int poolSize) {
    String schema = "wharf_t_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
    execute("CREATE SCHEMA " + schema);
    created.add(schema);
    return settingsFor(schema, poolSize);
  }

  /** Settings for an existing schema, e.g. to open a second node on it. */
  PostgresSettings settingsFor(String schema, int poolSize) {
    String sep = baseUrl.contains("?") ? "&" : "?";
    return new PostgresSettings(baseUrl + sep + "currentSchema=" + schema, null, null, poolSize);
  }

  /** Drops a schema the tests made (their names tell them apart from anything else). */
  void dropSchema(String schema) {
    if (schema != null && schema.toLowerCase(Locale.ROOT).startsWith("wharf_t_")) {
      execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      created.remove(schema);
    }
  }

  /** Drops every schema made here and not dropped yet: a shared server outlives the tests. */
  void dropCreated() {
    for (String schema : List.copyOf(created)) {
      try {
        dropSchema(schema);
      } catch (RuntimeException ignored) {
        // best effort at exit
      }
    }
  }

  /** The first column of the first row of a query, as an int. */
  int query(String sql) {
    try (Connection c = DriverManager.getConnection(baseUrl);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  void execute(String sql) {
    try (Connection c = DriverManager.getConnection(baseUrl);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }
}
