package dev.wharf.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/** {@code wharf_http_request_seconds{route,method,status}}; route is the template, not the path. */
public final class HttpMetrics {
  private static final Duration[] BUCKETS = {
    Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
    Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
    Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
    Duration.ofSeconds(30)
  };

  private final MeterRegistry registry;
  private final ConcurrentHashMap<String, Timer> timers = new ConcurrentHashMap<>();

  public HttpMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  public void record(String route, String method, int status, long nanos) {
    String key = route + ' ' + method + ' ' + status;
    Timer t = timers.get(key);
    if (t == null) {
      t =
          timers.computeIfAbsent(
              key,
              k ->
                  Timer.builder("wharf_http_request")
                      .description("HTTP requests by route template, method and status")
                      .tag("route", route)
                      .tag("method", method)
                      .tag("status", Integer.toString(status))
                      .serviceLevelObjectives(BUCKETS)
                      .register(registry));
    }
    t.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }
}
