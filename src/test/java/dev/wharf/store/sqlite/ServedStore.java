package dev.wharf.store.sqlite;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.http.HttpSettings;
import dev.wharf.http.WharfHttp;
import dev.wharf.testing.MutableClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * A store set up by a test (a gate on its fsyncs, a disk's free space of its own), started with a
 * broker and the real HTTP server on an ephemeral port: what such a test reaches through HTTP.
 */
final class ServedStore implements AutoCloseable {
  final SqliteStore store;
  final Broker broker;
  final WharfHttp http;

  private ServedStore(SqliteStore store) {
    this.store = store;
    store.start();
    broker = new Broker(store, MutableClock.atEpochDay(), BrokerOptions.defaults(),
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    broker.startWithoutReapers();
    http = WharfHttp.start(broker, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
        HttpSettings.defaults().withPort(0));
  }

  /** Starts {@code store}, a broker and the server on it. */
  static ServedStore serve(SqliteStore store) {
    return new ServedStore(store);
  }

  /** A JSON request to this server. */
  HttpRequest request(String method, String path, String body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path))
        .timeout(Duration.ofSeconds(5))
        .header("Content-Type", "application/json")
        .method(method, HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  @Override
  public void close() {
    http.close();
    broker.close();
    store.close();
  }
}
