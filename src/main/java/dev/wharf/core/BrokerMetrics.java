package dev.wharf.core;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/** The broker's counters and gauges, per queue, registered on first use. */
final class BrokerMetrics {
  enum Event {
    PUBLISHED(
        "wharf_messages_published",
        "Messages published to the queue (each of a batch), not counting idempotent repeats and"
            + " key replacements"),
    REPLACED(
        "wharf_messages_replaced",
        "Publishes with a key that replaced a ready message's body instead of adding a message,"
            + " and leased messages a newer publish with their key superseded, deleted when"
            + " their lease ended without an ack"),
    ACKED("wharf_messages_acked", "Messages acked: done and deleted"),
    NACKED("wharf_messages_nacked", "Leases nacked: the message ready again, now or later"),
    DEFERRED(
        "wharf_messages_deferred",
        "Leases deferred: the message ready again without using up an attempt"),
    DEAD("wharf_messages_dead", "Messages moved to the queue's dead-letter queue"),
    EXPIRED("wharf_messages_expired", "Messages whose TTL ended before they were acked"),
    DROPPED("wharf_messages_dropped", "Messages that died in a queue without a DLQ, deleted");

    final String meter;
    final String description;

    Event(String meter, String description) {
      this.meter = meter;
      this.description = description;
    }
  }

  private final MeterRegistry registry;
  private final Map<String, Map<Event, Counter>> counters = new ConcurrentHashMap<>();
  private final Map<String, List<Gauge>> gauges = new ConcurrentHashMap<>();
  private final Timer receiveWait;

  BrokerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.receiveWait =
        Timer.builder("wharf_receive_wait")
            .description("Time a receive spent waiting for messages")
            .publishPercentileHistogram()
            .register(registry);
  }

  void count(String queue, Event event, long n) {
    if (n > 0) {
      counter(queue, event).increment(n);
    }
  }

  long total(String queue, Event event) {
    return (long) counter(queue, event).count();
  }

  void receiveWaited(Duration d) {
    receiveWait.record(d);
  }

  /**
   * Registers depth gauges for a queue, and its counters at zero: a counter that first appears at
   * 1 loses that first message to a rate over it. {@code depthOfState} reads the count of one
   * state, {@code oldestReadyAge} the age of the queue's oldest ready message in seconds.
   */
  void watchDepth(
      String queue, ToDoubleFunction<String> depthOfState, DoubleSupplier oldestReadyAge) {
    for (Event e : Event.values()) {
      counter(queue, e);
    }
    gauges.computeIfAbsent(
        queue,
        q -> {
          List<Gauge> all = new ArrayList<>();
          for (String state : List.of("ready", "delayed", "leased", "expired")) {
            all.add(
                Gauge.builder("wharf_queue_depth", () -> depthOfState.applyAsDouble(state))
                    .description(
                        "Messages in the queue by state: ready, delayed, leased (in flight),"
                            + " expired")
                    .tag("queue", q)
                    .tag("state", state)
                    .register(registry));
          }
          all.add(
              Gauge.builder("wharf_queue_oldest_ready_age_seconds", oldestReadyAge::getAsDouble)
                  .description(
                      "How long the ready message that has waited longest for a consumer has"
                          + " been visible; 0 when none is ready")
                  .tag("queue", q)
                  .register(registry));
          return List.copyOf(all);
        });
  }

  void forget(String queue) {
    List<Gauge> g = gauges.remove(queue);
    if (g != null) {
      g.forEach(registry::remove);
    }
    Map<Event, Counter> c = counters.remove(queue);
    if (c != null) {
      c.values().forEach(registry::remove);
    }
  }

  private Counter counter(String queue, Event event) {
    return counters
        .computeIfAbsent(queue, q -> new ConcurrentHashMap<>())
        .computeIfAbsent(
            event,
            e ->
                Counter.builder(e.meter)
                    .description(e.description)
                    .tag("queue", queue)
                    .register(registry));
  }
}
