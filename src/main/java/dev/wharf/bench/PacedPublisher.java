package dev.wharf.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A multiplexed publisher at a fixed rate shared with the others of its {@link Pace}: it sends
 * when the next slot of the schedule is due and it has nothing in flight. The selector looks at
 * idle connections every millisecond, so slots due within one go out together; each message
 * carries the System.nanoTime of its own request, which the latency scenario's consumer
 * subtracts.
 */
final class PacedPublisher implements MuxClients.Conversation {
  /**
   * The schedule every publisher of a scenario takes its slots from, in order; shared by the
   * blocking publishers' threads too.
   */
  static final class Pace {
    /** Further behind than this (the server's warm-up), the missed slots are skipped. */
    private static final long MAX_BEHIND_NS = 100_000_000L;
    /**
     * A message sent later than this after its slot waited, beyond the multiplexed publishers'
     * 1 ms look at idle connections: for one to come free, or for a core to run their thread. A
     * wait the latencies do not hold.
     */
    static final long LATE_NS = 2_000_000L;

    private final long startNs;
    private final double intervalNs;
    private long slot;
    private long late;

    Pace(long startNs, double ratePerSecond) {
      this.startNs = startNs;
      this.intervalNs = 1e9 / ratePerSecond;
    }

    /**
     * Takes the next slot and returns when it is due, or -1 when publishers had fallen so far
     * behind that the missed slots were skipped instead (rather than burst through, so the
     * measured window runs at the rate asked for).
     */
    synchronized long take(long nowNs) {
      long due = startNs + (long) (slot * intervalNs);
      long behind = nowNs - due;
      if (behind > MAX_BEHIND_NS) {
        // At least one: at a rate under 10 a second one slot is longer than the bound.
        slot += Math.max(1, (long) (behind / intervalNs));
        return -1;
      }
      slot++;
      return due;
    }

    /** Takes the next slot only if it is due at {@code nowNs}: when it was due, else -1. */
    synchronized long takeIfDue(long nowNs) {
      if (nowNs < startNs + (long) (slot * intervalNs)) {
        return -1;
      }
      long due = take(nowNs);
      // A skip leaves the schedule at the slot due now: that one is sent, not one more besides.
      return due >= 0 ? due : takeIfDue(nowNs);
    }

    /**
     * Counts a message of the measured window sent more than {@link #LATE_NS} after the slot it
     * took ({@code dueNs}): it waited for a connection to come free.
     */
    synchronized void sent(long dueNs, long sentNs, Phase phase) {
      if (sentNs - dueNs > LATE_NS && phase.measuring(sentNs)) {
        late++;
      }
    }

    /** Messages of the measured window sent more than {@link #LATE_NS} after their slot. */
    synchronized long late() {
      return late;
    }

  }

  private final Phase phase;
  private final Pace pace;
  private final String path;
  private final Tally tally;
  private final AtomicLong measuredPublished;

  PacedPublisher(Phase phase, Pace pace, String path, Tally tally, AtomicLong measuredPublished) {
    this.phase = phase;
    this.pace = pace;
    this.path = path;
    this.tally = tally;
    this.measuredPublished = measuredPublished;
  }

  @Override
  public MuxClients.Request next() {
    long now = System.nanoTime();
    long due = pace.takeIfDue(now);
    if (due < 0) {
      return null;
    }
    pace.sent(due, now, phase);
    return new MuxClients.Request(path, Payloads.publish(now));
  }

  @Override
  public void answered(MuxClients.Request sent, long startedNs, long endedNs, int status,
      byte[] body) {
    if (status < 200 || status > 299) {
      tally.error("http " + status);
    } else if (phase.measuring(startedNs)) {
      tally.ok(startedNs, endedNs, 1);
      measuredPublished.incrementAndGet();
    }
  }

  @Override
  public void failed(String kind) {
    tally.error(kind);
  }
}
