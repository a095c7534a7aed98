package dev.wharf.model;

import dev.wharf.core.Broker;
import dev.wharf.store.Delivery;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One long-poll at a time, parked on a queue where nothing is visible, and what must wake it: a
 * publish (handed its messages in the publish's own commit), or a nack, defer, lease expiry, dead
 * move or redrive that makes messages visible there (woken, it claims on a thread of its own: the
 * run waits for that answer before its next step, so no step races it); a change of the settings
 * of its queue, or of a queue that dead-letters into it, answers it with nothing.
 *
 * <p>A delayed message coming due is left out: the broker schedules that wake on a real timer
 * for the delay as measured on the injected clock at the time, so moving the clock by hand does
 * not fire it, and a timer that fires later does so at a moment no seed decides. The run ends the
 * long-poll (the consumer leaves) before it moves the clock, and before a restart.
 */
final class LongPolls {
  /** What the run does with what a receive got: compares it with the model and leases it. */
  interface Taker {
    void take(String queue, int max, long leaseMs, List<Delivery> got);
  }

  /** Long enough that no run's steps outlast it while a long-poll is parked. */
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final long ANSWER_WITHIN_MS = 10_000;

  private final QueueModel model;
  private final Trace trace;
  private final Taker taker;
  private String queue;
  private int max;
  private long leaseMs;
  private CompletableFuture<List<Delivery>> parked;

  LongPolls(QueueModel model, Trace trace, Taker taker) {
    this.model = model;
    this.trace = trace;
    this.taker = taker;
  }

  boolean parked() {
    return parked != null;
  }

  /** A long-poll; answered at once when messages are visible, else left parked. */
  void start(Broker broker, String queue, int max, long now) {
    this.queue = queue;
    this.max = max;
    this.leaseMs = model.queues().spec(queue).visibilityMs();
    trace.add("receiveLater(\"" + queue + "\", " + max + ", wait " + WAIT.toMillis() + "ms)");
    parked = broker.receiveLater(queue, max, WAIT, null);
    afterStep(Set.of(), now);
  }

  /**
   * After each step: answered now if the model has messages visible in its queue or {@code
   * changed} holds it (the queues whose waiters a settings change woke), else still parked.
   */
  void afterStep(Set<String> changed, long now) {
    if (parked == null) {
      return;
    }
    if (changed.contains(queue)) {
      trace.expect(List.of(), answer(), "long-poll on " + queue + " after a settings change");
    } else if (!model.due(queue, 1, now).isEmpty()) {
      taker.take(queue, max, leaseMs, answer());
    } else if (parked.isDone()) {
      throw trace.discrepancy("long-poll on " + queue + " answered with nothing visible: "
          + parked.getNow(null));
    }
  }

  /** The consumer leaves: nothing is visible, so nothing was leased for it. */
  void leave() {
    if (parked != null) {
      trace.add("long-poll on " + queue + " cancelled");
      boolean cancelled = parked.cancel(false);
      trace.expect(true, cancelled, "long-poll still parked when its consumer left");
      parked = null;
    }
  }

  private List<Delivery> answer() {
    CompletableFuture<List<Delivery>> f = parked;
    parked = null;
    try {
      List<Delivery> got = f.get(ANSWER_WITHIN_MS, TimeUnit.MILLISECONDS);
      trace.add("  long-poll answered -> "
          + got.stream().map(d -> d.message().id() + " " + d.leaseId()).toList());
      return got;
    } catch (TimeoutException e) {
      f.cancel(false);
      throw trace.discrepancy("long-poll on " + queue + " not woken within "
          + ANSWER_WITHIN_MS + " ms; model: "
          + model.messages().stream().filter(m -> m.queue.equals(queue)).toList());
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }
}
