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
}
