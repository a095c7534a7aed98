package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.store.Store;
import dev.wharf.store.sqlite.SqliteStore;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker's close, and the reaper pass its timers may be running then: the store is closed right
 * after, so the pass must be over by the time the close returns.
 */
class BrokerCloseTest {
  @TempDir Path dir;

  @Test
  void closeReturnsOnlyOnceTheReaperPassUnderWayIsOver() throws Exception {
    SqliteStore real = new SqliteStore(dir.resolve("wharf.db"));
    real.start();
    CountDownLatch inPass = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Throwable> passFailed = new AtomicReference<>();
    // The first pass is a slow one: it deletes long-expired messages, held here until released.
    Store held = (Store) Proxy.newProxyInstance(
        Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
          if (method.getName().equals("messagesDeleteExpired")) {
            inPass.countDown();
            // As a store call does, this one goes on through the interrupt of the close.
            boolean interrupted = false;
            while (true) {
              try {
                release.await();
                break;
              } catch (InterruptedException e) {
                interrupted = true;
              }
            }
            if (interrupted) {
              Thread.currentThread().interrupt();
            }
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            passFailed.compareAndSet(null, e.getCause());
            throw e.getCause();
          }
        });
    Broker broker =
        new Broker(held, MutableClock.atEpochDay(), BrokerOptions.defaults(),
            new SimpleMeterRegistry());
    broker.start();
    try {
      assertThat(inPass.await(30, TimeUnit.SECONDS)).as("a reaper pass began").isTrue();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(broker::close);
      // A close that did not wait returns at once; this one waits for the release below.
      assertThatThrownBy(() -> closing.get(300, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      release.countDown();
      closing.get(30, TimeUnit.SECONDS);
    } finally {
      release.countDown();
      broker.close();
      real.close();
    }
    assertThat(passFailed.get()).isNull();
  }
}
