package dev.wharf.http;

import dev.wharf.http.server.Request;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * Who may call what. Management routes take the admin token, or only loopback clients when none is
 * configured; data routes take one of the queue's consumer tokens or the admin token when the queue
 * has any (or when tokens are required everywhere). Tokens are compared in constant time.
 */
public final class Auth {
  private final byte[] admin;
  private final boolean requireTokens;

  public Auth(String adminToken, boolean requireTokens) {
    this.admin =
        adminToken == null || adminToken.isEmpty()
            ? null
            : adminToken.getBytes(StandardCharsets.UTF_8);
    this.requireTokens = requireTokens;
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
      throw unauthorized("the bearer token is not accepted");
    }
  }

  public void data(Request req, List<String> consumerTokens) {
    if (consumerTokens.isEmpty() && !requireTokens) {
      return;
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
      throw unauthorized("the bearer token is not accepted for this queue");
    }
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

  private static ApiError unauthorized(String detail) {
    return new ApiError(401, "unauthorized", detail);
  }
}
