package dev.wharf.store;

import java.util.Map;

/**
 * What a reaper pass changed, per queue: how many messages became visible (so waiters can be
 * woken), went dead (counted on the queue they left), were dropped or expired by TTL, were deleted
 * as superseded by a newer publish with their key instead of becoming ready again, and how many
 * rows the pass touched in all (so the caller knows whether to run again).
 */
public record ReapResult(
    Map<String, Integer> madeVisible,
    Map<String, Integer> dead,
    Map<String, Integer> dropped,
    Map<String, Integer> expired,
    Map<String, Integer> superseded,
    int touched) {

  public static final ReapResult NONE =
      new ReapResult(Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), 0);
}
