package dev.wharf.bench;

import dev.wharf.loopback.HttpConn;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * {@code latency}: publish-to-receive time. One consumer long-polls (wait 10 s, up to 100 at a
 * time) while publishers publish at a fixed rate; every message carries the System.nanoTime taken
 * just before its publish request, and the consumer subtracts it from the time it has the message.
 * Acks go through a separate thread so they never delay the next poll.
 */
final class LatencyScenario {
  private static final long TAIL_NS = 5_000_000_000L;
  private LatencyScenario() {}

  /**
   * Publishers more than 2% short of the rate asked mean the server (or the machine) could not
   * carry it: the latencies then include the queueing of a saturated server, which a reader of
   * "latency at rate R" should know. Null when the rate was reached.
   */
  static String shortfall(double asked, double reached) {
    if (reached >= asked * 0.98) {
      return null;
    }
    return String.format(
        "publishers reached %.0f of the %.0f msg/s asked (%.0f%%): the server did not keep up;"
            + " the slots missed were skipped, and the latencies below leave out that wait",
        reached, asked, 100 * reached / asked);
  }

  /** @param peakHint single-publish peak msg/s measured earlier in this run, or 0 */
  static Result run(Target target, Options o, double peakHint) throws IOException {
    double peak = 0;
    double rate = o.rate();
    if (rate <= 0) {
      peak = peakHint > 0 ? peakHint : probePeak(target, o);
      rate = Math.max(1, peak / 2);
    }
    String queue = target.createQueue("latency");
    String publishPath = "/v1/queues/" + queue + "/messages";
    Phase phase = new Phase(o.warmup(), o.seconds());
    Histogram endToEndUs = new Histogram(1, 120_000_000L, 3);
    // Messages per answered poll: 1 means the poller keeps up message by message.
    Histogram perPoll = new Histogram(1, 1000, 2);
    LinkedBlockingQueue<String> toAck = new LinkedBlockingQueue<>();
    // Publishes of the measured window that succeeded: the poller keeps going until it has them.
    AtomicLong measuredPublished = new AtomicLong();
    // A publish may still be in flight when the window closes; its count comes after.
    AtomicBoolean publishersDone = new AtomicBoolean();
    try {
      Thread poller = target.start("bench-poller",
          () -> poll(target, queue, phase, publishersDone, measuredPublished, endToEndUs, perPoll,
              toAck));
      Thread acker = target.start("bench-acker",
          () -> ack(target, queue, poller, toAck));
      PacedPublisher.Pace pace = new PacedPublisher.Pace(System.nanoTime(), rate);
      Tally published = target.multiplexed()
          ? publishMultiplexed(target, o.clients(), phase, pace, publishPath, measuredPublished)
          : publishFromThreads(target, o.clients(), phase, pace, publishPath, measuredPublished);
      publishersDone.set(true);
      wakePoller(target, publishPath, poller);
      Workers.joinAll(List.of(poller, acker));
      Result r = new Result("latency").put("target_rate", Result.round(rate))
          .put("publishers", o.clients()).put("seconds", o.seconds());
      if (peak > 0) {
        r.put("measured_peak", Result.round(peak));
      }
      r.line(String.format("target %.0f msg/s%s, %d publisher clients%s, one long-poller (max 100)",
          rate, peak > 0 ? String.format(" (half the measured peak %.0f)", peak) : "",
          o.clients(), target.multiplexed() ? " on one thread" : ", a thread each"));
      r.rates("publish", published, o.seconds());
      double reached = published.messages / o.seconds();
      r.put("rate_reached", Result.round(reached / rate));
      String behind = shortfall(rate, reached);
      if (behind != null) {
        r.line("warning: " + behind);
      }
      long late = pace.late();
      r.put("sent_late", late);
      if (late > 0) {
        r.line(String.format(
            "warning: %d of the measured messages (%.2f%%) went out more than %d ms after their"
                + " slot (every connection busy, or the publishers' thread waiting for a core):"
                + " the latencies below leave out that wait",
            late, 100.0 * late / Math.max(1, published.messages),
            PacedPublisher.Pace.LATE_NS / 1_000_000));
      }
      r.put("received", endToEndUs.getTotalCount());
      if (endToEndUs.getTotalCount() < measuredPublished.get()) {
        r.line("warning: " + (measuredPublished.get() - endToEndUs.getTotalCount())
            + " messages of the measured window did not arrive within 5 s of its end");
      }
      r.latency("e2e", endToEndUs);
      r.line("e2e      " + Result.percentiles(endToEndUs) + "   (" + endToEndUs.getTotalCount()
          + " messages)");
      r.put("polls", perPoll.getTotalCount()).put("messages_per_poll_mean",
          Result.round(perPoll.getMean()));
      r.line(String.format("poller: %d answered polls, %.1f messages per poll on average",
          perPoll.getTotalCount(), perPoll.getMean()));
      return r;
    } finally {
      target.deleteQueue(queue);
    }
  }

  /** Every publisher a connection of one selector thread (the default, {@code --client mux}). */
  private static Tally publishMultiplexed(Target target, int clients, Phase phase,
      PacedPublisher.Pace pace, String path, AtomicLong measuredPublished) {
    Tally tally = new Tally();
    List<MuxClients.Conversation> pubs = new ArrayList<>(clients);
    for (int i = 0; i < clients; i++) {
      pubs.add(new PacedPublisher(phase, pace, path, tally, measuredPublished));
    }
    MuxClients.run(target.port(), target.token(), phase, pubs);
    return tally;
  }

  /** Every publisher a thread of its own, sleeping until its slot ({@code --client socket}). */
  private static Tally publishFromThreads(Target target, int clients, Phase phase,
      PacedPublisher.Pace pace, String path, AtomicLong measuredPublished) {
    List<Workers.Worker> pubs =
        Workers.run(target, clients, phase, () -> new Workers.Worker() {
          @Override
          void once(HttpConn conn) throws IOException {
            long due = pace.take(System.nanoTime());
            if (due < 0) {
              return;
            }
            for (long now = System.nanoTime(); now < due; now = System.nanoTime()) {
              LockSupport.parkNanos(due - now);
            }
            if (!phase.running()) {
              return;
            }
            long started = System.nanoTime();
            pace.sent(due, started, phase);
            HttpConn.Response r = conn.send("POST", path, Payloads.publish(started));
            long ended = System.nanoTime();
            if (!r.ok()) {
              tally.error("http " + r.status());
            } else if (phase.measuring(started)) {
              tally.ok(started, ended, 1);
              measuredPublished.incrementAndGet();
            }
          }
        });
    return Tally.merge(Workers.tallies(pubs));
  }

  private static double probePeak(Target target, Options o) throws IOException {
    String queue = target.createQueue("latency-probe");
    try {
      double seconds = 3;
      Tally t = PublishScenario.measure(target, queue, o.clients(), 1, seconds, false);
      return t.messages / seconds;
    } finally {
      target.deleteQueue(queue);
    }
  }

  /**
   * Polls until the measured window is over and every message published in it has arrived (or
   * {@link #TAIL_NS} more have passed), so the slowest messages are not left out.
   */
  private static void poll(Target target, String queue, Phase phase, AtomicBoolean publishersDone,
      AtomicLong published, Histogram e2eUs, Histogram perPoll,
      LinkedBlockingQueue<String> toAck) {
    String path = "/v1/queues/" + queue + "/receive";
    byte[] body = Payloads.receive(100, "10s");
    try (HttpConn conn = target.conn()) {
      while (phase.running()
          || !publishersDone.get()
          || (e2eUs.getTotalCount() < published.get()
              && System.nanoTime() - phase.stopAtNs() < TAIL_NS)) {
        try {
          HttpConn.Response r = conn.send("POST", path, body);
          long now = System.nanoTime();
          if (!r.ok()) {
            System.err.println("latency poller: " + Target.describe(r));
            Workers.pause(20);
            continue;
          }
          Received got = Received.parse(r.body());
          if (got.size() > 0) {
            perPoll.recordValue(got.size());
          }
          for (long sent : got.sentNs()) {
            if (phase.measuring(sent)) {
              e2eUs.recordValue(Math.max(1, Math.min((now - sent) / 1000, 120_000_000L)));
            }
          }
          toAck.addAll(got.leaseIds());
        } catch (IOException e) {
          System.err.println("latency poller: " + e);
          Workers.pause(20);
        }
      }
    }
  }

  private static void ack(Target target, String queue, Thread poller,
      LinkedBlockingQueue<String> toAck) {
    String path = "/v1/queues/" + queue + "/ack";
    try (HttpConn conn = target.conn()) {
      List<String> batch = new ArrayList<>(100);
      while (poller.isAlive() || !toAck.isEmpty()) {
        String first = toAck.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        toAck.drainTo(batch, 99);
        try {
          HttpConn.Response r = conn.send("POST", path, Payloads.ack(batch));
          if (!r.ok()) {
            System.err.println("latency acker: " + Target.describe(r));
          }
        } catch (IOException e) {
          System.err.println("latency acker: " + e);
        }
        batch.clear();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The poller may be parked in a 10 s wait; one more (unmeasured) message ends it at once. */
  private static void wakePoller(Target target, String publishPath, Thread poller) {
    try (HttpConn conn = target.conn()) {
      // Bounded: the poller gives up by itself TAIL_NS after the window.
      for (int i = 0; i < 10 && poller.isAlive(); i++) {
        conn.send("POST", publishPath, Payloads.publish(0));
        poller.join(1000);
      }
    } catch (IOException e) {
      System.err.println("latency: could not wake the poller: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
