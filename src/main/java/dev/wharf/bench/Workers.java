package dev.wharf.bench;

import dev.wharf.loopback.HttpConn;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** Runs N client workers, each on its own thread with its own connection, until a phase ends. */
final class Workers {
  private static final long FIRST_BACKOFF_MS = 20;
  private static final long MAX_BACKOFF_MS = 320;

  private Workers() {}

  /** One client: {@link #once} is one iteration of its loop, recording into its own tallies. */
  abstract static class Worker {
    final Tally tally = new Tally();

    abstract void once(HttpConn conn) throws IOException;
  }

  /** Starts the workers, waits for the phase to end and for every worker to finish. */
  static <W extends Worker> List<W> run(Target target, int n, Phase phase, Supplier<W> factory) {
    List<W> workers = new ArrayList<>(n);
    List<Thread> threads = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      W w = factory.get();
      workers.add(w);
      threads.add(target.start("bench-client-" + i, () -> loop(target, phase, w)));
    }
    joinAll(threads);
    return workers;
  }

  static List<Tally> tallies(List<? extends Worker> workers) {
    return workers.stream().map(w -> w.tally).toList();
  }

  static void joinAll(List<Thread> threads) {
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void loop(Target target, Phase phase, Worker w) {
    long backoffMs = FIRST_BACKOFF_MS;
    try (HttpConn conn = target.conn()) {
      while (phase.running()) {
        try {
          w.once(conn);
          backoffMs = FIRST_BACKOFF_MS;
        } catch (IOException e) {
          w.tally.error("io " + e.getClass().getSimpleName());
          // A refused connection fails fast. Backing off, as real clients do, keeps 64 of them
          // from spending a core on failed attempts (each one builds its request first) while
          // a killed server restarts on the same two cores.
          pause(backoffMs);
          backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
        }
      }
    }
  }

  static void pause(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
