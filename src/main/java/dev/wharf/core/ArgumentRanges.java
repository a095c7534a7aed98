package dev.wharf.core;

import java.time.Duration;

/** The ranges a command's durations and page sizes must fall in; outside them, bad input. */
final class ArgumentRanges {
  private ArgumentRanges() {}

  /** Refuses {@code d} outside {@code min} to {@code max}, naming it {@code field}. */
  static void checkRange(String field, Duration d, Duration min, Duration max) {
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw new BrokerException.Invalid(
          field + " must be between " + Durations.format(min) + " and " + Durations.format(max)
              + ", got " + Durations.format(d));
    }
  }

  /** Refuses a page of fewer than 1 or more than 1000 items. */
  static void checkLimit(int limit) {
    if (limit < 1 || limit > 1000) {
      throw new BrokerException.Invalid("limit must be between 1 and 1000, got " + limit);
    }
  }
}
