package dev.wharf.bench;

import java.util.concurrent.locks.LockSupport;

/**
 * The timeline of one scenario: warm-up, then the measured window, then stop. Workers ask
 * {@link #running()} in their loops and record only while {@link #measuring()}.
 */
final class Phase {
  private final long startNs;
  private final long measureFromNs;
  private final long stopAtNs;
  private volatile boolean stopped;
  // The measured window of the latest phase begun, for what watches the server meanwhile
  // (JitMeter); scenarios run one at a time.
  private static volatile long[] lastWindow = {0, 0};

  Phase(double warmupSeconds, double measureSeconds) {
    startNs = System.nanoTime();
    measureFromNs = startNs + (long) (warmupSeconds * 1e9);
    stopAtNs = measureFromNs + (long) (measureSeconds * 1e9);
    lastWindow = new long[] {measureFromNs, stopAtNs};
  }

  /** The measured window (from, to in nanoTime) of the latest phase begun. */
  static long[] lastWindow() {
    return lastWindow.clone();
  }

  boolean running() {
    return !stopped && System.nanoTime() < stopAtNs;
  }

  /** True when an operation that started at {@code startedNs} falls in the measured window. */
  boolean measuring(long startedNs) {
    return startedNs >= measureFromNs && startedNs < stopAtNs;
  }

  void stop() {
    stopped = true;
  }

  double measuredSeconds() {
    return (stopAtNs - measureFromNs) / 1e9;
  }

  long stopAtNs() {
    return stopAtNs;
  }

  /** Blocks the caller until the measured window is over (or {@link #stop()} was called). */
  void awaitEnd() {
    while (running()) {
      LockSupport.parkNanos(Math.min(stopAtNs - System.nanoTime(), 100_000_000L));
    }
  }
}
