package dev.wharf.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU the server's JIT compiler threads used over a scenario's measured window, in cores. On two
 * cores a compile still running after the warm-up takes a large share of the machine from the
 * scenario (one cold run of `consume --batch 1`: the compiler threads ~0.75 cores until 18 s in),
 * so a figure taken meanwhile is not the steady state; this line says when that happened.
 *
 * <p>Samples the compiler threads' CPU every 100 ms from the scenario's start; the window is that
 * of the last {@link Phase} the scenario began (a latency run that first finds the peak has two).
 */
final class JitMeter {
  private static final double TICKS_PER_SECOND = 100;
  private static final long EVERY_NS = 100_000_000L;
  private final long serverPid;
  private final List<long[]> samples = new ArrayList<>();
  private final Thread sampler;

  JitMeter(long serverPid) {
    this.serverPid = serverPid;
    sampler =
        Thread.ofPlatform()
            .daemon()
            .name("bench-jit-meter")
            .start(
                () -> {
                  while (!Thread.currentThread().isInterrupted()) {
                    sample();
                    try {
                      Thread.sleep(EVERY_NS / 1_000_000);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
  }

  /** Adds server_jit_cores when the window's start and end were both sampled. */
  void report(Result r) {
    sampler.interrupt();
    try {
      sampler.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sample();
    long[] window = Phase.lastWindow();
    long[] from = null;
    long[] to = null;
    synchronized (samples) {
      for (long[] s : samples) {
        if (from == null && s[0] >= window[0] - EVERY_NS) {
          from = s;
        }
        if (s[0] <= window[1] + EVERY_NS) {
          to = s;
        }
      }
    }
    if (serverPid <= 0 || window[1] <= window[0] || from == null || to == null
        || to[0] - from[0] < (window[1] - window[0]) / 2) {
      return;
    }
    double cores =
        Math.round((to[1] - from[1]) / TICKS_PER_SECOND / ((to[0] - from[0]) / 1e9) * 100) / 100.0;
    r.put("server_jit_cores", cores);
    r.line(String.format(
        "jit: the server's compiler threads used %s cores over the measured window", cores));
  }

  private void sample() {
    long t = compilerTicks(serverPid);
    if (t >= 0) {
      synchronized (samples) {
        samples.add(new long[] {System.nanoTime(), t});
      }
    }
  }

  /** utime + stime of the server's JIT compiler threads, in ticks, or -1. */
  static long compilerTicks(long pid) {
    if (pid <= 0) {
      return -1;
    }
    long sum = 0;
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : tasks) {
        try {
          // HotSpot names them "C1 CompilerThread0", "C2 CompilerThread0", ... (comm keeps 15).
          if (!Files.readString(task.resolve("comm")).contains("CompilerThre")) {
            continue;
          }
          sum += CpuMeter.ticksOf(Files.readString(task.resolve("stat")));
        } catch (IOException | RuntimeException e) {
          // A compiler thread may come and go between the listing and the read.
        }
      }
      return sum;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
