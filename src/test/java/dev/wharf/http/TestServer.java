package dev.wharf.http;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.store.Store;
import dev.wharf.store.sqlite.SqliteStore;
import dev.wharf.testing.MutableClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** A real server on an ephemeral port over a real SQLite store in a temp dir, clock by hand. */
final class TestServer implements AutoCloseable {
  static final long MAX_BODY = 4096;

  final MutableClock clock = MutableClock.atEpochDay();
  final SqliteStore store;

  /** When set, every store call but close throws it: a storage failure on demand. */
  volatile RuntimeException storeFailure;
  /** Claims the broker asked the store for (publishes that hand messages over not counted). */
  final AtomicInteger claims = new AtomicInteger();

  final Broker broker;
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final WharfHttp http;
  final Api api;

  TestServer(Path dir) {
    this(dir, null, false, "127.0.0.1");
  }

  TestServer(Path dir, String adminToken, boolean requireTokens, String host) {
    this(dir, adminToken, requireTokens, host, Duration.ofSeconds(1));
  }

  TestServer(Path dir, String adminToken, boolean requireTokens, String host, Duration keepalive) {
    this(dir, adminToken, requireTokens, host, keepalive, BrokerOptions.defaults());
  }

  TestServer(
      Path dir,
      String adminToken,
      boolean requireTokens,
      String host,
      Duration keepalive,
      BrokerOptions options) {
    this(
        dir, new HttpSettings(host, 0, MAX_BODY, adminToken, requireTokens, keepalive), options);
  }

  TestServer(Path dir, String host, BrokerOptions options) {
    this(dir, null, false, host, Duration.ofSeconds(1), options);
  }

  /** With the HTTP settings given (its port is ignored: an ephemeral one). */
  TestServer(Path dir, HttpSettings settings, BrokerOptions options) {
    store = new SqliteStore(dir.resolve("wharf.db"));
    store.start();
    broker = new Broker(failable(store), clock, options, registry);
    broker.startWithoutReapers();
    http = WharfHttp.start(broker, registry, settings.withPort(0));
    api = new Api("127.0.0.1", http.port());
  }

  private Store failable(Store real) {
    return (Store)
        Proxy.newProxyInstance(
            Store.class.getClassLoader(),
            new Class<?>[] {Store.class},
            (proxy, method, args) -> {
              RuntimeException failure = storeFailure;
              if (failure != null && !method.getName().equals("close")) {
                throw failure;
              }
              if (method.getName().startsWith("messagesClaim")) {
                claims.incrementAndGet();
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
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
