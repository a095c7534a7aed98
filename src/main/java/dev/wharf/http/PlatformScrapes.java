package dev.wharf.http;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs a metrics scrape on a platform thread. On a virtual thread the JDK's {@code BufferedWriter}
 * starts at 512 chars and grows to exactly the size each write needs, one array copy per write up
 * to 8,192: the Prometheus text writer made ~18 MB of garbage to render ~18 KB (measured with an
 * allocation profile of 20 scrapes). A platform thread's writer starts at its full size.
 *
 * <p>One thread at most, made when a scrape comes and gone after a minute without one, so a
 * server that is never scraped holds none. Scrapes asked for while one runs share the next: each
 * answer is rendered after it was asked for, and however many clients ask at once (or ask and
 * leave), at most one scrape runs and one waits.
 */
final class PlatformScrapes {
  private final ThreadPoolExecutor thread =
      new ThreadPoolExecutor(
          0,
          1,
          1,
          TimeUnit.MINUTES,
          new LinkedBlockingQueue<>(),
          Thread.ofPlatform().name("wharf-metrics").daemon().factory());

  /** The scrape asked for and not yet begun, which whoever asks meanwhile shares. */
  private CompletableFuture<Object> next;

  /** Callers waiting for {@link #next}: how many share it (for tests). */
  private int sharing;

  synchronized int waitingForNext() {
    return sharing;
  }

  /** The supplier's value, computed on the scrape thread; the caller waits for it. */
  @SuppressWarnings("unchecked")
  <T> T run(Supplier<T> scrape) {
    CompletableFuture<Object> shared;
    synchronized (this) {
      if (next == null) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        next = f;
        thread.execute(
            () -> {
              synchronized (this) {
                if (next == f) {
                  next = null;
                  sharing = 0;
                }
              }
              try {
                f.complete(scrape.get());
              } catch (Throwable e) {
                f.completeExceptionally(e);
              }
            });
      }
      shared = next;
      sharing++;
    }
    try {
      return (T) shared.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a metrics scrape", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }
}
