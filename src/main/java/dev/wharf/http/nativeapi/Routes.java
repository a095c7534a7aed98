package dev.wharf.http.nativeapi;

import dev.wharf.core.BrokerException;
import dev.wharf.core.BrokerOptions;
import dev.wharf.http.ApiError;
import dev.wharf.http.server.Request;
import java.util.function.Supplier;

/** Small pieces the native services share. */
final class Routes {
  private Routes() {}

  static String queue(Request req) {
    return req.param("name");
  }

  /**
   * Whether a receive may ask for {@code max} messages. The core checks it too, but names it
   * "batch"; checking here first lets the answer name the field the client sent.
   */
  static boolean batchInRange(int max) {
    return max >= 1 && max <= BrokerOptions.MAX_RECEIVE_BATCH;
  }

  static String batchRange(String field, int max) {
    return field + " must be between 1 and " + BrokerOptions.MAX_RECEIVE_BATCH + ", got " + max;
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
