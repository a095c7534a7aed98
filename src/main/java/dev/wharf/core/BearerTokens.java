package dev.wharf.core;

/**
 * What a token must be to be presented at all: a client sends it in an {@code Authorization:
 * Bearer} header, which the server trims and which carries only visible ASCII and spaces reliably
 * (clients send other characters as UTF-8 bytes, or refuse to, and servers read a header's bytes
 * as ISO-8859-1). A token that breaks this could be configured but would never match.
 */
public final class BearerTokens {
  private BearerTokens() {}

  /** Why the token could never be presented, or null when it can. */
  public static String problem(String token) {
    if (token == null || token.isEmpty()) {
      return "tokens must not be empty";
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (Character.isISOControl(c)) {
        return "a token must not hold control characters (it is sent in a header)";
      }
      if (c > '~') {
        return "a token must be ASCII: letters, digits, punctuation and inner spaces"
            + " (it is sent in a header, which carries no other characters reliably)";
      }
    }
    // The same characters String.trim takes off the header's value.
    if (token.charAt(0) <= ' ' || token.charAt(token.length() - 1) <= ' ') {
      return "a token must not begin or end with a space (the header it is sent in is trimmed)";
    }
    return null;
  }
}
