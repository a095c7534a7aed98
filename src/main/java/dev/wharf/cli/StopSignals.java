package dev.wharf.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT ask {@code wharf serve} to stop, and it stops as a command that finishes:
 * exit status 0. Left to the JVM, they run the shutdown hooks and exit 143 or 130, which
 * systemd, Docker and Kubernetes report as a failure of a server that stopped as asked.
 */
final class StopSignals {
  private StopSignals() {}

  /**
   * A second signal this soon after the first is the same ask: {@code timeout} and some
   * supervisors signal the process and then its group, which reaches it twice at once.
   */
  private static final long SAME_ASK_NANOS = 200_000_000L;

  /** The stop the signals ask for, once they are handled; one per process. */
  private static CountDownLatch installed;

  /**
   * Handles the signals from here on, and returns the latch they count down; later calls return
   * the same one, so a signal that came before the server's start is still a stop asked for.
   * {@link Main#main} calls it first thing for {@code wharf serve}: a signal before it (the JVM's
   * own start, tens of milliseconds) still ends the process as the JVM does, exit 143, but
   * nothing is open yet then, so nothing is half-written.
   *
   * <p>A second signal while the server stops ends the process at once, as an operator pressing
   * Ctrl-C again means. When the JVM keeps the signals for itself ({@code -Xrs}) its shutdown
   * hooks stop the server instead.
   */
  static synchronized CountDownLatch install() {
    if (installed == null) {
      installed = new CountDownLatch(1);
      handle(installed);
    }
    return installed;
  }

  private static void handle(CountDownLatch stopAsked) {
    AtomicLong firstAt = new AtomicLong();
    try {
      for (String name : new String[] {"TERM", "INT"}) {
        Signal.handle(new Signal(name), signal -> {
          long now = System.nanoTime();
          if (stopAsked.getCount() == 0 && now - firstAt.get() >= SAME_ASK_NANOS) {
            Runtime.getRuntime().halt(128 + signal.getNumber());
          }
          if (stopAsked.getCount() > 0) {
            firstAt.set(now);
          }
          stopAsked.countDown();
        });
      }
    } catch (IllegalArgumentException e) {
      // Not ours to handle: the shutdown hooks run.
    }
  }
}
