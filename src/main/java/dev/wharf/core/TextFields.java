package dev.wharf.core;

/** The rules every short text field a client names shares: keys, idempotency keys, reasons. */
final class TextFields {
  private TextFields() {}

  /**
   * Refuses a value of fewer than {@code min} or more than {@code max} characters (as people
   * count them: one outside the BMP is one, not Java's two chars), or holding NUL, which
   * PostgreSQL's text cannot store: every backend refuses it alike. Null passes.
   */
  static void check(String field, String value, int min, int max) {
    if (value == null) {
      return;
    }
    int n = value.codePointCount(0, value.length());
    if (n < min || n > max) {
      throw new BrokerException.Invalid(
          min > 0
              ? field + " must be " + min + " to " + max + " characters"
              : field + " must be at most " + max + " characters");
    }
    if (value.indexOf('\0') >= 0) {
      throw new BrokerException.Invalid(field + " must not contain the NUL character (U+0000)");
    }
  }
}
