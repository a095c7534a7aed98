package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.StorageFull;
import dev.wharf.store.Store;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** A reaper pass refused for a full disk logs a line that says so, not a stack trace. */
class ReaperFullDiskLogTest {
  @Test
  void aFullDiskIsALineNotATrace() {
    Store full = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(),
        new Class<?>[] {Store.class}, (proxy, method, args) -> {
          throw new StorageFull("write failed: the disk is full", null);
        });
    Broker broker = new Broker(full, MutableClock.atEpochDay(), BrokerOptions.defaults(),
        new SimpleMeterRegistry());
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Logger log = Logger.getLogger(Reapers.class.getName());
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord r) {
        logged.add(r);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    log.addHandler(capture);
    try {
      Reapers reapers = new Reapers(broker);
      reapers.tick();
      reapers.tick();
    } finally {
      log.removeHandler(capture);
      broker.close();
    }
    assertThat(logged).hasSize(1);
    assertThat(logged.get(0).getThrown()).isNull();
    assertThat(logged.get(0).getMessage())
        .isEqualTo("reaper pass failed: the disk is full; will retry every 100 ms"
            + " (write failed: the disk is full)");
  }
}
