package dev.wharf.store;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * The future of a write, and of everything chained to it. Its writer's own threads complete it,
 * and run what is chained to it; one of them waiting for a write not yet done would wait for
 * itself, so that wait fails at once instead of hanging the store.
 */
public final class WriteFuture<T> extends CompletableFuture<T> {
  private final Predicate<Thread> writerThread;

  /** @param writerThread whether a thread is one of those that complete this writer's writes */
  public WriteFuture(Predicate<Thread> writerThread) {
    this.writerThread = writerThread;
  }

  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new WriteFuture<>(writerThread);
  }

  @Override
  public T join() {
    mayWait();
    return super.join();
  }

  @Override
  public T get() throws InterruptedException, ExecutionException {
    mayWait();
    return super.get();
  }

  @Override
  public T get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    mayWait();
    return super.get(timeout, unit);
  }

  private void mayWait() {
    if (!isDone() && writerThread.test(Thread.currentThread())) {
      throw new IllegalStateException("a write waited for on its writer's own thread");
    }
  }
}
