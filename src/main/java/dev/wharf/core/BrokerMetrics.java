package dev.wharf.core;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/** The broker's counters and gauges, per queue, registered on first use while it exists. */
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

  /**
   * A queue's meters: its counters from the first count or watch, its gauges from the watch.
   * Made only for a queue that exists, so a count that comes after its queue's deletion (a reaper
   * pass or a settle that was under way, another node's deletion heard late) makes no series
   * that nothing would ever remove.
   */
  private record QueueMeters(Map<Event, Counter> counters, List<Gauge> gauges) {}

  private final MeterRegistry registry;
  private final Predicate<String> exists;
  private final Map<String, QueueMeters> byQueue = new ConcurrentHashMap<>();
  private final Timer receiveWait;

  /** {@code exists} tells whether a queue exists now; a deletion says so before {@link #forget}. */
  BrokerMetrics(MeterRegistry registry, Predicate<String> exists) {
    this.registry = registry;
    this.exists = exists;
    this.receiveWait =
        Timer.builder("wharf_receive_wait")
            .description("Time a receive spent waiting for messages")
            .publishPercentileHistogram()
            .register(registry);
  }

  void count(String queue, Event event, long n) {
    if (n > 0) {
      QueueMeters m = meters(queue);
      if (m != null) {
        m.counters().get(event).increment(n);
      }
    }
  }

  long total(String queue, Event event) {
    QueueMeters m = meters(queue);
    return m == null ? 0 : (long) m.counters().get(event).count();
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
    byQueue.compute(
        queue,
        (q, m) -> {
          if (!exists.test(q) || (m != null && m.gauges() != null)) {
            return m;
          }
          Map<Event, Counter> counters = m != null ? m.counters() : counters(q);
          return new QueueMeters(counters, gauges(q, depthOfState, oldestReadyAge));
        });
  }

  /** Removes a deleted queue's series: a queue made again under its name starts from zero. */
  void forget(String queue) {
    // In the map's lock for the name: a count or watch that found the queue still there has
    // either registered its meters before this, or sees the queue gone after it.
    byQueue.computeIfPresent(
        queue,
        (q, m) -> {
          m.counters().values().forEach(registry::remove);
          if (m.gauges() != null) {
            m.gauges().forEach(registry::remove);
          }
          return null;
        });
  }

  /** Queues with meters (for tests: a deleted queue must leave none). */
  int queuesWithMeters() {
    return byQueue.size();
  }

  private QueueMeters meters(String queue) {
    QueueMeters m = byQueue.get(queue);
    if (m != null) {
      return m;
    }
    return byQueue.computeIfAbsent(
        queue, q -> exists.test(q) ? new QueueMeters(counters(q), null) : null);
  }

  private Map<Event, Counter> counters(String queue) {
    Map<Event, Counter> out = new EnumMap<>(Event.class);
    for (Event e : Event.values()) {
      out.put(
          e,
          Counter.builder(e.meter).description(e.description).tag("queue", queue)
              .register(registry));
    }
    return out;
  }

  private List<Gauge> gauges(
      String q, ToDoubleFunction<String> depthOfState, DoubleSupplier oldestReadyAge) {
    List<Gauge> all = new ArrayList<>();
    for (String state : List.of("ready", "delayed", "leased", "expired")) {
      all.add(
          Gauge.builder("wharf_queue_depth", () -> depthOfState.applyAsDouble(state))
              .description(
                  "Messages in the queue by state: ready, delayed, leased (in flight), expired")
              .tag("queue", q)
              .tag("state", state)
              .register(registry));
    }
    all.add(
        Gauge.builder("wharf_queue_oldest_ready_age_seconds", oldestReadyAge::getAsDouble)
            .description(
                "How long the ready message that has waited longest for a consumer has been"
                    + " visible; 0 when none is ready")
            .tag("queue", q)
            .register(registry));
    return List.copyOf(all);
  }
}
