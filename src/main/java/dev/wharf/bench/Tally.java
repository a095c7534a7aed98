package dev.wharf.bench;

import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * One worker's counts and request latencies. Each worker owns its own (no sharing on the hot
 * path); they are merged once the scenario ends.
 */
final class Tally {
  // Microseconds from 1 us to 2 minutes, 3 significant digits.
  final Histogram latencyUs = new Histogram(1, 120_000_000L, 3);
  long requests;
  long messages;
  long errors;
  final Map<String, Long> errorKinds = new TreeMap<>();

  void ok(long startedNs, long endedNs, int messageCount) {
    requests++;
    messages += messageCount;
    latencyUs.recordValue(Math.max(1, Math.min((endedNs - startedNs) / 1000, 120_000_000L)));
  }

  void error(String kind) {
    errors++;
    errorKinds.merge(kind, 1L, Long::sum);
  }

  void add(Tally other) {
    latencyUs.add(other.latencyUs);
    requests += other.requests;
    messages += other.messages;
    errors += other.errors;
    other.errorKinds.forEach((k, v) -> errorKinds.merge(k, v, Long::sum));
  }

  static Tally merge(Iterable<Tally> tallies) {
    Tally all = new Tally();
    tallies.forEach(all::add);
    return all;
  }
}
