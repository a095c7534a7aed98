package dev.wharf.config;

import dev.wharf.core.BearerTokens;

/**
 * The {@code auth} section.
 *
 * @param adminToken guards management routes; null = they answer loopback clients only
 * @param requireTokens when true, a queue without consumer tokens needs the admin token
 */
public record AuthConfig(String adminToken, boolean requireTokens) {

  public static AuthConfig defaults() {
    return new AuthConfig(null, false);
  }

  static AuthConfig read(ConfigNode n) {
    String token = n.string("admin_token", null);
    if (token != null && !token.isEmpty() && BearerTokens.problem(token) != null) {
      n.problem("admin_token", BearerTokens.problem(token));
    }
    boolean require = n.bool("require_tokens", false);
    n.rejectUnknown();
    // An empty token (say from ${ADMIN_TOKEN:-}) means none rather than "the empty string".
    return new AuthConfig(token == null || token.isEmpty() ? null : token, require);
  }
}
