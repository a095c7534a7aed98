package dev.wharf.crash;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.http.HttpSettings;
import dev.wharf.http.WharfHttp;
import dev.wharf.store.Store;
import dev.wharf.store.postgres.PostgresSettings;
import dev.wharf.store.postgres.PostgresStore;
import dev.wharf.store.sqlite.SqliteStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;

/**
 * The server the crash test kills: SQLite on the given file (or PostgreSQL, for an argument
 * {@code postgres:<jdbc url>}), the broker on the real clock, the HTTP server on an ephemeral port
 * that it prints as {@code PORT <n>}. It exits when its stdin closes, so it never outlives the
 * test that started it.
 */
public final class ChildServer {
  static final String POSTGRES = "postgres:";

  private ChildServer() {}

  public static void main(String[] args) throws Exception {
    Store store =
        args[0].startsWith(POSTGRES)
            ? new PostgresStore(
                new PostgresSettings(args[0].substring(POSTGRES.length()), null, null, 4))
            : new SqliteStore(Path.of(args[0]));
    store.start();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Broker broker = new Broker(store, InstantSource.system(), BrokerOptions.defaults(), registry);
    broker.start();
    WharfHttp http = WharfHttp.start(broker, registry, HttpSettings.defaults().withPort(0));
    System.out.println("PORT " + http.port());
    System.out.flush();
    try {
      while (System.in.read() >= 0) {
        // the parent never writes; EOF means it is gone
      }
    } catch (IOException e) {
      // same: the parent is gone
    }
    Runtime.getRuntime().halt(0);
  }
}
