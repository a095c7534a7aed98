package dev.wharf.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** {@code wharf_http_request_seconds{route,method,status}}; route is the template, not the path. */
public final class HttpMetrics {
  /**
   * A durable publish on a local disk answers in about a millisecond, a receive of ready messages
   * in less: the buckets below 1 ms are where those routes' medians fall.
   */
  private static final Duration[] BUCKETS = {
    Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1),
    Duration.ofNanos(2_500_000), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
    Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
    Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
    Duration.ofSeconds(30)
  };

  private final MeterRegistry registry;

  public HttpMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** The timers of one route and method, one per status, made on first use. */
  public Route route(String template, String method) {
    return new Route(template, method);
  }

  public final class Route {
    private final String template;
    private final String method;
    // Indexed by status code: the hot path neither allocates nor hashes.
    private final AtomicReferenceArray<Timer> byStatus = new AtomicReferenceArray<>(600);

    private Route(String template, String method) {
      this.template = template;
      this.method = method;
    }

    public void record(int status, long nanos) {
      int i = status >= 0 && status < 600 ? status : 0;
      Timer t = byStatus.get(i);
      if (t == null) {
        // Micrometer hands back the same timer for the same name and tags, so a race is harmless.
        t =
            Timer.builder("wharf_http_request")
                .description("HTTP requests by route template, method and status")
                .tag("route", template)
                .tag("method", method)
                .tag("status", Integer.toString(status))
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
        byStatus.set(i, t);
      }
      t.record(nanos, TimeUnit.NANOSECONDS);
    }
  }
}
