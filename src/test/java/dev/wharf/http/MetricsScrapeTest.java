package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.http.Api.Reply;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a Prometheus scrape of {@code /metrics} costs the server, beyond what it answers. */
class MetricsScrapeTest {
  private static final int SCRAPES = 5;

  @TempDir Path dir;

  @Test
  void aScrapeMakesLittleGarbage() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (TestServer s = new TestServer(dir)) {
      assertThat(s.api.put("/v1/queues/q", "{}").status()).isEqualTo(201);
      Reply first = s.api.get("/metrics");
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.text()).contains("wharf_messages_published_total");
      long before = threads.getTotalThreadAllocatedBytes();
      for (int i = 0; i < SCRAPES; i++) {
        assertThat(s.api.get("/metrics").status()).isEqualTo(200);
      }
      long perScrape = (threads.getTotalThreadAllocatedBytes() - before) / SCRAPES;
      // Rendered on a virtual thread, a scrape of this registry (~20 KB of text) made ~18 MB of
      // garbage; on a platform thread, well under 1 MB. The bound leaves room for the client's
      // own allocations in this process.
      assertThat(perScrape).isLessThan(4L << 20);
    }
  }

  @Test
  void scrapesRunOnAPlatformThreadAndPassFailuresOn() {
    PlatformScrapes scrapes = new PlatformScrapes();
    boolean onVirtual = scrapes.run(() -> Thread.currentThread().isVirtual());
    assertThat(onVirtual).isFalse();
    IllegalArgumentException boom = new IllegalArgumentException("boom");
    Supplier<Object> failing =
        () -> {
          throw boom;
        };
    assertThatThrownBy(() -> scrapes.run(failing)).isSameAs(boom);
  }

  @Test
  void scrapesAskedForWhileOneRunsShareTheNext() throws Exception {
    PlatformScrapes scrapes = new PlatformScrapes();
    java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
    Supplier<Integer> scrape =
        () -> {
          int n = runs.incrementAndGet();
          if (n == 1) {
            running.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
          }
          return n;
        };
    try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      var first = pool.submit(() -> scrapes.run(scrape));
      running.await();
      java.util.List<java.util.concurrent.Future<Integer>> later = new java.util.ArrayList<>();
      for (int i = 0; i < 16; i++) {
        later.add(pool.submit(() -> scrapes.run(scrape)));
      }
      // Let the sixteen reach the scrapes before the running one ends.
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (scrapes.waitingForNext() < 16 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      release.countDown();
      assertThat(first.get()).isEqualTo(1);
      for (var f : later) {
        assertThat(f.get()).isEqualTo(2);
      }
    }
    assertThat(runs.get()).isEqualTo(2);
  }
}
