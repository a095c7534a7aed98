package dev.wharf.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes as people write them: {@code 1MB}, {@code 512KB}, {@code 2048} (bytes). Units are binary
 * (1KB = 1024 bytes), as body limits usually are.
 */
public final class ByteSizes {
  private static final Pattern FORM =
      Pattern.compile("(\\d{1,12})\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?");

  private ByteSizes() {}

  /** Parses a size; throws IllegalArgumentException naming the text when it is not one. */
  public static long parse(String text) {
    Matcher m = FORM.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("not a size: \"" + text + "\"");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    long factor =
        switch (unit.charAt(0)) {
          case 'k' -> 1L << 10;
          case 'm' -> 1L << 20;
          case 'g' -> 1L << 30;
          default -> 1L;
        };
    return Math.multiplyExact(n, factor);
  }

  /** The shortest exact form: {@code 1MB}, {@code 512KB}, {@code 1000B}. */
  public static String format(long bytes) {
    if (bytes != 0 && bytes % (1L << 30) == 0) {
      return bytes / (1L << 30) + "GB";
    }
    if (bytes != 0 && bytes % (1L << 20) == 0) {
      return bytes / (1L << 20) + "MB";
    }
    if (bytes != 0 && bytes % (1L << 10) == 0) {
      return bytes / (1L << 10) + "KB";
    }
    return bytes + "B";
  }
}
