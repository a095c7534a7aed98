package dev.wharf.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU used by this process and by the server over a scenario, in cores (1.0 = one core busy),
 * to show whether the client is cheap next to the server it shares the machine with.
 */
final class CpuMeter {
  // USER_HZ: the unit of /proc/<pid>/stat times; 100 on every mainstream Linux build.
  private static final double TICKS_PER_SECOND = 100;
  private final long serverPid;
  private final long wallStart;
  private final long selfStart;
  private final long serverStart;

  CpuMeter(long serverPid) {
    this.serverPid = serverPid;
    this.wallStart = System.nanoTime();
    this.selfStart = selfCpuNanos();
    this.serverStart = serverTicks(serverPid);
  }

  /** Adds bench_cpu_cores and, when the server's pid is known, server_cpu_cores. */
  void report(Result r) {
    double wall = (System.nanoTime() - wallStart) / 1e9;
    long self = selfCpuNanos();
    if (self >= 0 && selfStart >= 0) {
      r.put("bench_cpu_cores", Math.round((self - selfStart) / 1e9 / wall * 100) / 100.0);
    }
    long server = serverTicks(serverPid);
    if (server >= 0 && serverStart >= 0) {
      r.put("server_cpu_cores",
          Math.round((server - serverStart) / TICKS_PER_SECOND / wall * 100) / 100.0);
    }
    r.line(String.format("cpu: bench %s cores, server %s cores (averaged over the scenario)",
        r.get("bench_cpu_cores"), r.get("server_cpu_cores") == null ? "?" : r.get("server_cpu_cores")));
  }

  private static long selfCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** utime + stime of {@code pid} in ticks, or -1. */
  static long serverTicks(long pid) {
    if (pid <= 0) {
      return -1;
    }
    try {
      return ticksOf(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** utime + stime from the text of a /proc stat file (a process's or a thread's). */
  static long ticksOf(String stat) {
    // Fields after the parenthesised command name (which may contain spaces).
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
