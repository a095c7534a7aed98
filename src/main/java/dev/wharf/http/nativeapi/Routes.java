package dev.wharf.http.nativeapi;

import dev.wharf.core.BrokerException;
import dev.wharf.http.ApiError;
import dev.wharf.http.server.Request;
import java.util.function.Supplier;

/** Small pieces the native services share. */
final class Routes {
  private Routes() {}

  static String queue(Request req) {
    return req.param("name");
  }

  /** Core range errors about query parameters are parameter errors, not body errors. */
  static <T> T asParam(Supplier<T> call) {
    try {
      return call.get();
    } catch (BrokerException.Invalid e) {
      throw ApiError.invalidParam(e.getMessage());
    }
  }
}
