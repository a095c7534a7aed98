package dev.wharf.testing;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerOptions;
import dev.wharf.store.sqlite.SqliteStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.InstantSource;

/**
 * A broker on a SQLite file, reapers off and the clock at a fixed day: for tests that drive the
 * core directly. Closing it closes the broker, then the store.
 */
public record SqliteBroker(SqliteStore store, Broker broker) implements AutoCloseable {
  public static SqliteBroker open(Path file) {
    return open(file, MutableClock.atEpochDay());
  }

  /** On a clock the test keeps, to move it, and to keep it across a restart on the same file. */
  public static SqliteBroker open(Path file, InstantSource clock) {
    SqliteStore store = new SqliteStore(file);
    store.start();
    Broker broker = new Broker(store, clock, BrokerOptions.defaults(), new SimpleMeterRegistry());
    broker.startWithoutReapers();
    return new SqliteBroker(store, broker);
  }

  @Override
  public void close() {
    broker.close();
    store.close();
  }
}
