package dev.wharf.http.nativeapi;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.http.ApiError;
import dev.wharf.http.server.Request;
import dev.wharf.store.Delivery;
import java.util.List;
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

  /**
   * Gives deliveries that never reached their consumer back at once, the attempt not counted, so
   * they need not wait for their leases to run out.
   */
  static void release(Broker broker, String queue, List<Delivery> undelivered) {
    broker.releaseQuietly(queue, undelivered);
  }
}
