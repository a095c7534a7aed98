package dev.wharf.store.sqlite;

import java.util.concurrent.CompletableFuture;

/** An operation queued for the writer ({@link GroupCommitWriter}), and how its caller waits. */
record PendingWrite<T>(
    WriterOp<T> op,
    CompletableFuture<T> done,
    WriteAnswer answer,
    Grouped<?, T> grouped,
    long submittedNanos,
    boolean freesRoom) {
  boolean claim() {
    return answer == WriteAnswer.CLAIM;
  }

  /** A request of a {@link WriterGroupOp}, and the key of the operations it runs with. */
  record Grouped<R, T>(Object key, R request, WriterGroupOp<R, T> op) {}

  @SuppressWarnings("unchecked")
  static <T> void complete(PendingWrite<T> p, Object result) {
    p.done().complete((T) result);
  }
}
