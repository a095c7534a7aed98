package dev.wharf.http;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.store.sqlite.SqliteStore;
import dev.wharf.testing.MutableClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;

/** A real server on an ephemeral port over a real SQLite store in a temp dir, clock by hand. */
final class TestServer implements AutoCloseable {
  static final long MAX_BODY = 4096;

  final MutableClock clock = MutableClock.atEpochDay();
  final SqliteStore store;
  final Broker broker;
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final WharfHttp http;
  final Api api;

  TestServer(Path dir) {
    this(dir, null, false, "127.0.0.1");
  }

  TestServer(Path dir, String adminToken, boolean requireTokens, String host) {
    store = new SqliteStore(dir.resolve("wharf.db"));
    store.start();
    broker = new Broker(store, clock, BrokerOptions.defaults(), registry);
    broker.startWithoutReapers();
    http =
        WharfHttp.start(
            broker,
            registry,
            new HttpSettings(host, 0, MAX_BODY, adminToken, requireTokens, Duration.ofSeconds(1)));
    api = new Api("127.0.0.1", http.port());
  }

  /** Moves the clock and runs whatever became due, as the background reapers would. */
  void advance(Duration d) {
    broker.reapers().runOnce(clock.advance(d));
  }

  @Override
  public void close() {
    http.close();
    broker.close();
    store.close();
  }
}
