package dev.wharf.store;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The asynchronous form of a blocking store call, for backends with no queue of their own to
 * answer from: the call runs on a virtual thread of its own, and its outcome completes the future
 * there.
 */
public final class OffThread {
  private OffThread() {}

  public static <T> CompletableFuture<T> call(Supplier<T> blocking) {
    CompletableFuture<T> done = new CompletableFuture<>();
    Thread.ofVirtual()
        .name("wharf-store-call")
        .start(
            () -> {
              try {
                done.complete(blocking.get());
              } catch (Throwable t) {
                done.completeExceptionally(t);
              }
            });
    return done;
  }
}
