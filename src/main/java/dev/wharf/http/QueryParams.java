package dev.wharf.http;

import dev.wharf.core.Durations;
import dev.wharf.http.server.Request;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Typed query parameters; a bad one is a 400 {@code invalid_param} naming it. */
public final class QueryParams {
  private final Map<String, List<String>> query;

  public QueryParams(Request req) {
    this.query = req.query();
  }

  /** The value given for {@code name}, or null ({@link Endpoints} refuses a repeated one). */
  public String string(String name) {
    List<String> values = query.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
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
      throw ApiError.invalidParam(
          name + " must be a cursor from an earlier page, got \"" + v + "\"");
    }
  }

  public Duration duration(String name) {
    String v = string(name);
    if (v == null) {
      return null;
    }
    try {
      return Durations.parse(v);
    } catch (Durations.NegativeException e) {
      throw ApiError.invalidParam(name + " " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw ApiError.invalidParam(name + " must be a duration such as \"30s\", got \"" + v + "\"");
    }
  }
}
