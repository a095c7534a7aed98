package dev.wharf.testing;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.store.sqlite.SqliteStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;

/**
 * A broker on a SQLite file, reapers off and the clock at a fixed day: for tests that drive the
 * core directly. Closing it closes the broker, then the store.
 */
public record SqliteBroker(SqliteStore store, Broker broker) implements AutoCloseable {
  public static SqliteBroker open(Path file) {
    SqliteStore store = new SqliteStore(file);
    store.start();
    Broker broker = new Broker(store, MutableClock.atEpochDay(), BrokerOptions.defaults(),
        new SimpleMeterRegistry());
    broker.startWithoutReapers();
    return new SqliteBroker(store, broker);
  }

  @Override
  public void close() {
    broker.close();
    store.close();
  }
}
