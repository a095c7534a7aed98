package dev.wharf.cli;

/**
 * Text from the server made safe for a terminal. Bodies, headers and dead reasons come from
 * whoever publishes or settles, and an escape sequence printed raw would act on the operator's
 * terminal (recolour, retitle, clear, or hide what follows); so control characters, and those
 * that reorder text, are shown as a backslash, u and four hex digits. A tab stays: it only moves
 * the cursor on.
 */
final class Printable {
  private Printable() {}

  static String of(String s) {
    if (s == null) {
      return null;
    }
    StringBuilder b = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (unsafe(c)) {
        if (b == null) {
          b = new StringBuilder(s.length() + 16).append(s, 0, i);
        }
        b.append(String.format("\\u%04x", (int) c));
      } else if (b != null) {
        b.append(c);
      }
    }
    return b == null ? s : b.toString();
  }

  private static boolean unsafe(char c) {
    return Character.isISOControl(c) && c != '\t'
        || c >= '\u202a' && c <= '\u202e'
        || c >= '\u2066' && c <= '\u2069'
        || c == '\u2028'
        || c == '\u2029';
  }
}
