package dev.wharf.core;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them in config and requests: {@code 250ms}, {@code 30s}, {@code 5m}. */
public final class Durations {
  private static final Pattern FORM = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)?");

  private Durations() {}

  /** Parses a duration; a bare number is seconds. Throws IllegalArgumentException when not one. */
  public static Duration parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("not a duration: null");
    }
    Matcher m = FORM.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a duration: \"" + text + "\"");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  /** The shortest exact form: {@code 30s}, {@code 1500ms}, {@code 12h}. */
  public static String format(Duration d) {
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
