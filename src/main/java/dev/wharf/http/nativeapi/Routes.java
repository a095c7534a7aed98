package dev.wharf.http.nativeapi;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.http.ApiError;
import dev.wharf.store.Delivery;
import dev.wharf.http.server.Request;
import java.util.List;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Small pieces the native services share. */
final class Routes {
  private static final Logger LOG = Logger.getLogger(Routes.class.getName());

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
    if (undelivered.isEmpty()) {
      return;
    }
    try {
      broker.settle().release(queue, undelivered.stream().map(Delivery::leaseId).toList());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "could not release undelivered leases; they will expire", e);
    }
  }
}
