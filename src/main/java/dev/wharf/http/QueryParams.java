package dev.wharf.http;

import dev.wharf.core.Durations;
import io.helidon.common.uri.UriQuery;
import java.time.Duration;

/** Typed query parameters; a bad one is a 400 {@code invalid_param} naming it. */
public final class QueryParams {
  private final UriQuery query;

  public QueryParams(UriQuery query) {
    this.query = query;
  }

  public String string(String name) {
    return query.contains(name) ? query.get(name) : null;
  }

  public int integer(String name, int dflt) {
    String v = string(name);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw ApiError.invalidParam(name + " must be an integer, got \"" + v + "\"");
    }
  }

  public long nonNegativeLong(String name, long dflt) {
    String v = string(name);
    if (v == null || v.isEmpty()) {
      return dflt;
    }
    try {
      long n = Long.parseLong(v);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw ApiError.invalidParam(name + " must be a cursor from an earlier page, got \"" + v + "\"");
    }
  }

  public Duration duration(String name) {
    String v = string(name);
    if (v == null) {
      return null;
    }
    try {
      Duration d = Durations.parse(v);
      if (d.compareTo(Duration.ofDays(3650)) > 0) {
        throw new IllegalArgumentException();
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw ApiError.invalidParam(name + " must be a duration such as \"30s\", got \"" + v + "\"");
    }
  }
}
