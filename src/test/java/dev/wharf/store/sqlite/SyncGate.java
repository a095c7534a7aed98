package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Holds every fsync of the WAL while closed, but those it is told to let through. */
final class SyncGate implements WalSync {
  private volatile boolean closed;
  private volatile boolean failNext;
  private final AtomicInteger calls = new AtomicInteger();
  private final Semaphore passes = new Semaphore(0);
  private final AtomicInteger held = new AtomicInteger();

  void close() {
    passes.drainPermits();
    closed = true;
  }

  void open() {
    closed = false;
    passes.release(1_000_000);
  }

  void letOneThrough() {
    passes.release();
  }

  /** How many fsyncs the gate holds now. */
  int heldNow() {
    return held.get();
  }

  /** Waits until exactly {@code n} fsyncs are held at the gate. */
  void awaitHeld(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (held.get() != n) {
      assertThat(System.nanoTime()).as("%d fsyncs held in time", n).isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  /** The next fsync fails, as a disk's error would. */
  void failNext() {
    failNext = true;
  }

  /** Fsyncs asked for so far, held, failed or not. */
  int calls() {
    return calls.get();
  }

  @Override
  public void sync() throws IOException {
    calls.incrementAndGet();
    if (failNext) {
      failNext = false;
      throw new IOException("injected fsync failure");
    }
    if (!closed) {
      return;
    }
    held.incrementAndGet();
    try {
      passes.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      held.decrementAndGet();
    }
  }

  /**
   * A store (not yet started) on {@code file} whose every WAL fsync first passes {@code sync}: a
   * gate, or a test's own stand-in for the disk.
   */
  static SqliteStore storeAt(Path file, WalSync sync) {
    return new SqliteStore(file, Checkpointer.restartFrames(SqliteStore.DEFAULT_PAGE_SIZE), sync);
  }
}
