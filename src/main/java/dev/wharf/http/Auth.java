package dev.wharf.http;

import dev.wharf.http.server.Request;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * Who may call what. Management routes take the admin token, or only loopback clients when none is
 * configured; data routes take one of the queue's consumer tokens or the admin token when the queue
 * has any (or when tokens are required everywhere). Tokens are compared in constant time.
 *
 * <p>A token the server does not know is a 401; a consumer token used where it gives no right (a
 * management route, another queue's data routes) is a 403, so its holder learns that the token is
 * fine and the route is not theirs, rather than retrying with a fresh one.
 */
public final class Auth {
  private final byte[] admin;
  private final boolean requireTokens;
  private final Supplier<? extends Collection<String>> consumerTokens;

  /** {@code consumerTokens} gives every queue's consumer tokens; it is asked only on a refusal. */
  public Auth(
      String adminToken,
      boolean requireTokens,
      Supplier<? extends Collection<String>> consumerTokens) {
    this.admin =
        adminToken == null || adminToken.isEmpty()
            ? null
            : adminToken.getBytes(StandardCharsets.UTF_8);
    this.requireTokens = requireTokens;
    this.consumerTokens = consumerTokens;
  }

  public void management(Request req) {
    if (admin == null) {
      if (!loopback(req)) {
        throw new ApiError(
            403,
            "forbidden",
            "management routes answer only loopback clients when no admin token is configured");
      }
      return;
    }
    byte[] given = bearer(req);
    if (given == null) {
      throw unauthorized("a bearer token is required");
    }
    if (!MessageDigest.isEqual(given, admin)) {
      if (isConsumerToken(given)) {
        throw forbidden("a consumer token does not give access to management routes");
      }
      throw unauthorized("the bearer token is not accepted");
    }
  }

  public void data(Request req, List<String> consumerTokens) {
    if (consumerTokens.isEmpty() && !requireTokens) {
      return;
    }
    if (consumerTokens.isEmpty() && admin == null) {
      // No token at all would open it: a 401 would send its client looking for one.
      throw forbidden(
          "this queue takes no data requests: auth.require_tokens is on, the queue has no"
              + " consumer_tokens and no admin token is configured; give it consumer_tokens");
    }
    byte[] given = bearer(req);
    if (given == null) {
      throw unauthorized("this queue requires a bearer token");
    }
    // No early exit: the time taken does not tell which token (if any) matched.
    boolean ok = admin != null && MessageDigest.isEqual(given, admin);
    for (String t : consumerTokens) {
      ok |= MessageDigest.isEqual(given, t.getBytes(StandardCharsets.UTF_8));
    }
    if (!ok) {
      if (isConsumerToken(given)) {
        throw forbidden("the bearer token is not allowed on this queue");
      }
      throw unauthorized("the bearer token is not accepted");
    }
  }

  private boolean isConsumerToken(byte[] given) {
    boolean known = false;
    for (String t : consumerTokens.get()) {
      known |= MessageDigest.isEqual(given, t.getBytes(StandardCharsets.UTF_8));
    }
    return known;
  }

  private static byte[] bearer(Request req) {
    String h = req.header("Authorization");
    if (h == null || h.length() < 7 || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String token = h.substring(7).trim();
    return token.isEmpty() ? null : token.getBytes(StandardCharsets.UTF_8);
  }

  private static boolean loopback(Request req) {
    InetSocketAddress inet = req.remoteAddress();
    return inet != null
        && inet.getAddress() != null
        && inet.getAddress().isLoopbackAddress();
  }

  private static ApiError forbidden(String detail) {
    return new ApiError(403, "forbidden", detail);
  }

  private static ApiError unauthorized(String detail) {
    return new ApiError(401, "unauthorized", detail);
  }
}
