package dev.wharf.config;

import java.util.ArrayList;
import java.util.List;

/** What a valid config may not mean: said by {@code config check} and at the start alike. */
public final class ConfigWarnings {
  private ConfigWarnings() {}

  public static List<String> of(WharfConfig cfg) {
    List<String> out = new ArrayList<>();
    if (cfg.auth().requireTokens() && cfg.auth().adminToken() == null) {
      // Valid, and workable (queues given tokens from loopback), but easy to do by mistake.
      List<String> closed =
          cfg.queues().values().stream()
              .filter(q -> q.settings().consumerTokens().isEmpty())
              .map(QueueConfig::name)
              .toList();
      out.add("require_tokens without an admin token: a queue without consumer_tokens takes no"
          + " data requests at all"
          + (closed.isEmpty() ? "" : " (here: " + String.join(", ", closed) + ")"));
    }
    return out;
  }
}
