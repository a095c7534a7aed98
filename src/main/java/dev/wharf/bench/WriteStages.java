package dev.wharf.bench;

import dev.wharf.loopback.HttpConn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The server's write stages over a scenario (SQLite storage only), from the count and sum of its
 * timers on {@code /metrics} before and after: the mean wait for the writer, batch, commit to
 * durable and fsync, and batches a second. Says where a scenario's write latency went without a
 * profiler; a server without those timers (PostgreSQL) gets no line.
 */
final class WriteStages {
  /** Timer, label, in the order printed. */
  static final List<String[]> STAGES =
      List.of(
          new String[] {"wharf_sqlite_write_queued_seconds", "queued"},
          new String[] {"wharf_sqlite_batch_seconds", "batch"},
          new String[] {"wharf_sqlite_batch_durable_seconds", "commit to durable"},
          new String[] {"wharf_sqlite_wal_fsync_seconds", "fsync"});

  private final Target target;
  private final long wallStart;
  private final Map<String, Double> start;

  WriteStages(Target target) {
    this.target = target;
    this.wallStart = System.nanoTime();
    this.start = read(target);
  }

  /** Adds the stages' means in milliseconds and the batch rate, when the server has them. */
  void report(Result r) {
    Map<String, Double> end = read(target);
    String line = describe(start, end, (System.nanoTime() - wallStart) / 1e9, r);
    if (line != null) {
      r.line(line);
    }
  }

  /**
   * The line for two samples {@code seconds} apart, also put into {@code r}; null when either
   * lacks a stage.
   */
  static String describe(Map<String, Double> before, Map<String, Double> after, double seconds,
      Result r) {
    StringBuilder b = new StringBuilder("server writes (means):");
    for (String[] stage : STAGES) {
      Double count0 = before.get(stage[0] + "_count");
      Double count1 = after.get(stage[0] + "_count");
      Double sum0 = before.get(stage[0] + "_sum");
      Double sum1 = after.get(stage[0] + "_sum");
      if (count0 == null || count1 == null || sum0 == null || sum1 == null) {
        return null;
      }
      double n = count1 - count0;
      double meanMs = n > 0 ? (sum1 - sum0) / n * 1000 : 0;
      String key = "server_" + stage[1].replace(' ', '_') + "_mean_ms";
      r.put(key, Math.round(meanMs * 1000) / 1000.0);
      b.append(String.format(" %s %.3f ms,", stage[1], meanMs));
      if (stage[0].equals("wharf_sqlite_batch_seconds")) {
        r.put("server_batches_per_s", Math.round(n / seconds));
      }
    }
    b.append(String.format(" %d batches/s", (Long) r.get("server_batches_per_s")));
    return b.toString();
  }

  /** The unlabelled samples of {@code /metrics}, or an empty map when it cannot be read. */
  private static Map<String, Double> read(Target target) {
    try (HttpConn c = target.conn()) {
      HttpConn.Response res = c.send("GET", "/metrics", null);
      return res.ok() ? parse(new String(res.body(), StandardCharsets.UTF_8)) : Map.of();
    } catch (IOException e) {
      return Map.of();
    }
  }

  /** Prometheus text: the samples without labels, by name. */
  static Map<String, Double> parse(String text) {
    Map<String, Double> samples = new HashMap<>();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("#") || line.contains("{")) {
        continue;
      }
      int space = line.indexOf(' ');
      if (space < 0) {
        continue;
      }
      try {
        samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1).trim()));
      } catch (NumberFormatException e) {
        // not a sample
      }
    }
    return samples;
  }
}
