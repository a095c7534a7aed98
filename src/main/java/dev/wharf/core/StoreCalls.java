package dev.wharf.core;

import dev.wharf.store.LowOnDisk;
import dev.wharf.store.QueueGone;
import dev.wharf.store.StoreException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Calls into the store as the broker makes them: a storage failure comes out as the
 * broker's {@link BrokerException.Unavailable}, a queue the store found gone as {@link
 * BrokerException.QueueNotFound}, so no dialect ever sees a store's own exception.
 */
final class StoreCalls {
  private StoreCalls() {}

  static <T> T guard(java.util.function.Supplier<T> storeCall) {
    try {
      return storeCall.get();
    } catch (StoreException e) {
      throw unavailable(e);
    } catch (QueueGone e) {
      throw new BrokerException.QueueNotFound(e.queue());
    }
  }

  /** A store's future, its storage failure (thrown or completed with) turned into the broker's. */
  static <T> CompletableFuture<T> guarded(java.util.function.Supplier<CompletableFuture<T>> call) {
    CompletableFuture<T> storeCall;
    try {
      storeCall = call.get();
    } catch (RuntimeException e) {
      storeCall = CompletableFuture.failedFuture(e);
    }
    return storeCall.exceptionallyCompose(
        failure ->
            CompletableFuture.failedFuture(
                switch (unwrap(failure)) {
                  case StoreException e -> unavailable(e);
                  case QueueGone e -> new BrokerException.QueueNotFound(e.queue());
                  case Throwable t -> t;
                }));
  }

  private static BrokerException unavailable(StoreException e) {
    if (e instanceof LowOnDisk) {
      // A refusal, not a failure: its message says why, and what ends it.
      return new BrokerException.Unavailable(e.getMessage());
    }
    return new BrokerException.Unavailable(
        "storage failed: " + StoreException.firstLine(e.getMessage()));
  }

  /** Waits for a broker future on the caller's thread, throwing what it failed with. */
  static <T> T await(CompletableFuture<T> pending) {
    try {
      return pending.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /** The failure a dependent future reports, without the wrapper a chain adds. */
  static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException c && c.getCause() != null
        ? c.getCause()
        : failure;
  }
}
