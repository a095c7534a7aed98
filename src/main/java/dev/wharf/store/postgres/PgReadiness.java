package dev.wharf.store.postgres;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The readiness check, answered within {@link #WAIT_MS} (or the stall timeout, when less)
 * whatever the database or the read pool does: a probe is usually given a second (Kubernetes'
 * default), and one that hangs tells nobody anything. The read itself may take longer (a pool
 * with no connection left waits for a new one's login): it goes on, and probes that come
 * meanwhile wait for its answer rather than each holding a connection of their own.
 */
final class PgReadiness {
  static final int WAIT_MS = 1000;

  private final PgReads reads;
  private final int waitMillis;
  private final AtomicReference<CompletableFuture<String>> underWay = new AtomicReference<>();

  PgReadiness(PgReads reads, int stallMillis) {
    this.reads = reads;
    this.waitMillis = Math.min(stallMillis, WAIT_MS);
  }

  /** Null when the database answers a read of the schema's tables, else why not. */
  String unready() {
    String away = reads.knownUnreachable();
    if (away != null) {
      // Known already: not the wait for a check under way, which may be stuck on the pool.
      return "storage is not answering: PostgreSQL is unreachable: " + away;
    }
    try {
      return check().get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return "storage is not answering: no answer within " + waitMillis + " ms";
    } catch (ExecutionException e) {
      return "storage is not answering: " + e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "storage is not answering: interrupted";
    }
  }

  /** The check under way, or a new one. */
  private CompletableFuture<String> check() {
    while (true) {
      CompletableFuture<String> current = underWay.get();
      if (current != null) {
        return current;
      }
      CompletableFuture<String> mine = new CompletableFuture<>();
      if (underWay.compareAndSet(null, mine)) {
        Thread.ofVirtual().name("wharf-pg-ready").start(() -> {
          try {
            mine.complete(reads.unready(waitMillis));
          } catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
          } finally {
            underWay.compareAndSet(mine, null);
          }
        });
        return mine;
      }
    }
  }
}
