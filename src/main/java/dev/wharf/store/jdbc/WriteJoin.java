package dev.wharf.store.jdbc;

import dev.wharf.store.QueueGone;
import dev.wharf.store.StoreException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/** How a caller of either JDBC backend's writer waits for its write and hears how it failed. */
public final class WriteJoin {
  private WriteJoin() {}

  /**
   * The write's result once its future completes. A {@link StoreException} or {@link QueueGone}
   * reaches the caller as it was thrown, since it already says what went wrong; any other failure
   * is handed to {@code failed}, the backend's own words for a failed write.
   */
  public static <T> T join(
      CompletableFuture<T> done, Function<Throwable, StoreException> failed) {
    try {
      return done.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof StoreException se) {
        throw se;
      }
      if (e.getCause() instanceof QueueGone gone) {
        throw gone;
      }
      throw failed.apply(e.getCause());
    }
  }
}
