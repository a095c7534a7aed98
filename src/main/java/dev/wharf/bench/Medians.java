package dev.wharf.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Collects the results of repeated runs and gives, per scenario, the median of each figure. */
final class Medians {
  private final Map<String, List<Result>> byScenario = new LinkedHashMap<>();

  void add(Result r) {
    byScenario.computeIfAbsent((String) r.get("scenario"), k -> new ArrayList<>()).add(r);
  }

  /** One result per scenario named {@code <scenario>}, every numeric field the median of runs. */
  List<Result> medians() {
    List<Result> out = new ArrayList<>();
    byScenario.forEach((scenario, runs) -> {
      Result m = new Result(scenario + " (median of " + runs.size() + " runs)");
      m.put("scenario", scenario).put("runs", runs.size());
      for (String key : runs.get(0).keys()) {
        if (key.equals("scenario")) {
          continue;
        }
        Object first = runs.get(0).get(key);
        if (first instanceof Number) {
          double[] values = runs.stream().map(r -> r.get(key)).filter(v -> v instanceof Number)
              .mapToDouble(v -> ((Number) v).doubleValue()).toArray();
          double med = median(values);
          m.put(key, med == Math.rint(med) && Math.abs(med) < 1e15 ? (Object) (long) med : med);
        } else {
          m.put(key, first);
        }
      }
      for (String key : runs.get(0).keys()) {
        if (key.endsWith("_msg_per_s") || key.endsWith("_p50_ms") || key.endsWith("_p99_ms")
            || key.equals("held_max") || key.equals("rss_held_mb")) {
          m.line(key + " = " + m.get(key));
        }
      }
      out.add(m);
    });
    return out;
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    double mid = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return Math.round(mid * 100) / 100.0;
  }
}
