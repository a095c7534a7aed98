package dev.wharf.core;

/**
 * What a token must be to be presented: a client sends it in an {@code Authorization: Bearer}
 * header, which the server trims and which cannot carry control characters. Beyond ASCII a header
 * carries nothing reliably either (clients send such characters as UTF-8, as ISO-8859-1, or
 * refuse to, and the server reads a header's bytes as ISO-8859-1): such a token matches for some
 * clients and not others, so a token set now must be ASCII. Tokens stored before that rule are
 * left to work for the clients they work for.
 */
public final class BearerTokens {
  private BearerTokens() {}

  /** Why a token cannot be set now, or null when it can. */
  public static String problem(String token) {
    String never = neverMatches(token);
    return never != null ? never : beyondAscii(token);
  }

  /** Why no client could ever present the token, or null when some could. */
  public static String neverMatches(String token) {
    if (token == null || token.isEmpty()) {
      return "tokens must not be empty";
    }
    for (int i = 0; i < token.length(); i++) {
      if (Character.isISOControl(token.charAt(i))) {
        return "a token must not hold control characters (it is sent in a header)";
      }
    }
    // The same characters String.trim takes off the header's value.
    if (token.charAt(0) <= ' ' || token.charAt(token.length() - 1) <= ' ') {
      return "a token must not begin or end with a space (the header it is sent in is trimmed)";
    }
    return null;
  }

  /** Why a token some clients could present is not one to set now, or null. */
  public static String beyondAscii(String token) {
    for (int i = 0; i < token.length(); i++) {
      if (token.charAt(i) > '~') {
        return "a token must be ASCII: letters, digits, punctuation and inner spaces"
            + " (it is sent in a header, which carries no other characters reliably)";
      }
    }
    return null;
  }
}
