package dev.wharf.core;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them in config and requests: {@code 250ms}, {@code 30s}, {@code 5m}. */
public final class Durations {
  private static final Pattern FORM = Pattern.compile("(-?)(\\d+)(ms|s|m|h|d)?");
  /**
   * Past every field's range by far, and short of where arithmetic on a duration overflows
   * (milliseconds, an instant's year). A longer one is refused by its field's range as any value
   * above it is; parsed, it stands for itself as {@link #BEYOND}.
   */
  private static final Duration LONGEST = Duration.ofDays(1_000_000_000L);

  private static final Duration BEYOND = LONGEST.plusMillis(1);

  private Durations() {}

  /** A duration written with a minus sign: said apart, as the other forms have one answer. */
  public static final class NegativeException extends IllegalArgumentException {
    NegativeException(String text) {
      super("must not be negative, got \"" + text + "\"");
    }
  }

  /**
   * Parses a duration; a bare number is seconds. Throws {@link NegativeException} for one with a
   * minus sign and IllegalArgumentException for anything else that is not one. A duration longer
   * than any field allows, however many digits it has, is read as such: its field's range then
   * says so, as of any other value above it.
   */
  public static Duration parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("not a duration: null");
    }
    Matcher m = FORM.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a duration: \"" + text + "\"");
    }
    if (!m.group(1).isEmpty()) {
      throw new NegativeException(text);
    }
    String unit = m.group(3) == null ? "s" : m.group(3);
    long unitMillis =
        switch (unit) {
          case "ms" -> 1L;
          case "s" -> 1_000L;
          case "m" -> 60_000L;
          case "h" -> 3_600_000L;
          default -> 86_400_000L;
        };
    String digits = m.group(2);
    // Leading zeros dropped by hand: a regex here was compiled on every receive that waits.
    int lead = 0;
    while (lead < digits.length() - 1 && digits.charAt(lead) == '0') {
      lead++;
    }
    digits = digits.substring(lead);
    // Eighteen digits always fit a long; more are past LONGEST in any unit.
    if (digits.length() > 18) {
      return BEYOND;
    }
    long n = Long.parseLong(digits);
    if (n > LONGEST.toMillis() / unitMillis) {
      return BEYOND;
    }
    return Duration.ofMillis(n * unitMillis);
  }

  /**
   * The shortest exact form: {@code 30s}, {@code 1500ms}, {@code 12h}; a duration parsed from
   * more than a billion days is "more than 1000000000d".
   */
  public static String format(Duration d) {
    if (d.compareTo(LONGEST) > 0) {
      return "more than " + format(LONGEST);
    }
    long ms = d.toMillis();
    if (ms % 1000 != 0) {
      return ms + "ms";
    }
    long s = ms / 1000;
    if (s != 0 && s % 86400 == 0) {
      return s / 86400 + "d";
    }
    if (s != 0 && s % 3600 == 0) {
      return s / 3600 + "h";
    }
    if (s != 0 && s % 60 == 0) {
      return s / 60 + "m";
    }
    return s + "s";
  }
}
