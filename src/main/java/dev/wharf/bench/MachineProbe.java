package dev.wharf.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * How fast the machine is while the scenarios run, taken before them: the machines these figures
 * come from are shared, and the same server code has measured a third fewer single publishes one
 * session than the session before. Figures from different days compare only next to such a
 * reading. Two numbers: a fixed loop on one core (CPU per request bounds most scenarios) and 4 KB
 * writes each followed by an fdatasync (the disk's sync latency bounds every durable answer).
 */
final class MachineProbe {
  private static final int LOOP_ROUNDS = 5;
  private static final long LOOP_STEPS = 50_000_000L;
  private static final int SYNCS = 300;
  private static final int BLOCK = 4096;
  /** Written by the loop so the JIT cannot drop it. */
  static volatile long sink;

  private MachineProbe() {}

  /** @param dir where the sync file goes: the filesystem the server's data is on */
  static Result take(Path dir) throws IOException {
    double loopMs = loopMs();
    long[] syncUs = syncUs(dir);
    long p50 = syncUs[syncUs.length / 2];
    long p90 = syncUs[syncUs.length * 9 / 10];
    return new Result("machine")
        .put("cpu_loop_ms", Result.round(loopMs))
        .put("sync_4k_p50_us", p50)
        .put("sync_4k_p90_us", p90)
        .put("sync_dir", dir.toString())
        .line(String.format("cpu: fixed loop %.1f ms (best of %d, lower is faster); disk: 4 KB"
            + " write + fdatasync p50 %d µs, p90 %d µs (%d in %s)", loopMs, LOOP_ROUNDS, p50, p90,
            SYNCS, dir));
  }

  /** The best of a few runs: the first ones run before the JIT has compiled the loop. */
  static double loopMs() {
    long best = Long.MAX_VALUE;
    for (int r = 0; r < LOOP_ROUNDS; r++) {
      long began = System.nanoTime();
      long x = 0x9E3779B97F4A7C15L + r;
      long acc = 0;
      for (long i = 0; i < LOOP_STEPS; i++) {
        // xorshift: each step depends on the last, so the loop cannot be vectorised away
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        acc += x;
      }
      sink = acc;
      best = Math.min(best, System.nanoTime() - began);
    }
    return best / 1e6;
  }

  /** Sorted microseconds of each write-and-sync, over a file removed afterwards. */
  static long[] syncUs(Path dir) throws IOException {
    Path file = Files.createTempFile(dir, "wharf-bench-probe", ".dat");
    long[] us = new long[SYNCS];
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer block = ByteBuffer.allocate(BLOCK);
      for (int i = 0; i < SYNCS; i++) {
        block.clear();
        long began = System.nanoTime();
        ch.write(block, (long) i * BLOCK);
        ch.force(false);
        us[i] = (System.nanoTime() - began) / 1000;
      }
    } finally {
      Files.deleteIfExists(file);
    }
    Arrays.sort(us);
    return us;
  }
}
