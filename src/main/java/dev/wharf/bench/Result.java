package dev.wharf.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The figures of one scenario run, printed for people and, with --json, as one JSON line. */
final class Result {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Map<String, Object> fields = new LinkedHashMap<>();
  private final StringBuilder text = new StringBuilder();

  Result(String scenario) {
    fields.put("scenario", scenario);
    text.append("== ").append(scenario).append('\n');
  }

  Result put(String key, Object value) {
    fields.put(key, value);
    return this;
  }

  Object get(String key) {
    return fields.get(key);
  }

  List<String> keys() {
    return List.copyOf(fields.keySet());
  }

  /** Adds a line of readable output. */
  Result line(String s) {
    text.append("   ").append(s).append('\n');
    return this;
  }

  /**
   * Adds rates and latency percentiles of {@code t} under {@code prefix} (e.g. "publish"): the
   * request rate, the message rate and request latency in milliseconds.
   */
  Result rates(String prefix, Tally t, double seconds) {
    double rps = t.requests / seconds;
    double mps = t.messages / seconds;
    put(prefix + "_req_per_s", round(rps));
    put(prefix + "_msg_per_s", round(mps));
    latency(prefix, t.latencyUs);
    put(prefix + "_errors", t.errors);
    line(String.format("%-8s %10.0f req/s %10.0f msg/s   %s   errors %d%s", prefix, rps, mps,
        percentiles(t.latencyUs), t.errors, t.errors == 0 ? "" : " " + t.errorKinds));
    return this;
  }

  /** Adds latency percentiles in milliseconds of a histogram in microseconds. */
  Result latency(String prefix, Histogram us) {
    put(prefix + "_p50_ms", ms(us.getValueAtPercentile(50)));
    put(prefix + "_p90_ms", ms(us.getValueAtPercentile(90)));
    put(prefix + "_p99_ms", ms(us.getValueAtPercentile(99)));
    put(prefix + "_p999_ms", ms(us.getValueAtPercentile(99.9)));
    put(prefix + "_max_ms", ms(us.getMaxValue()));
    return this;
  }

  static String percentiles(Histogram us) {
    if (us.getTotalCount() == 0) {
      return "latency n/a";
    }
    return String.format("p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f ms",
        ms(us.getValueAtPercentile(50)), ms(us.getValueAtPercentile(90)),
        ms(us.getValueAtPercentile(99)), ms(us.getValueAtPercentile(99.9)),
        ms(us.getMaxValue()));
  }

  void print(PrintStream out, boolean json) {
    out.print(text);
    if (json) {
      try {
        out.println(JSON.writeValueAsString(fields));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
    out.flush();
  }

  static double ms(long us) {
    return Math.round(us / 10.0) / 100.0;
  }

  static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
