package dev.wharf.http.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The request-body bytes the whole server may hold at once. A body is read into memory whole, and
 * its buffer is sized from its Content-Length before the bytes come: without a bound shared by
 * every connection, a few thousand clients that each declare a large body and send none of it
 * would fill the heap, and the event loop would stall in garbage collection for everyone. A body
 * that does not fit is refused before it is read; what a body took is given back when its answer
 * is out or its connection is gone.
 */
final class BodyBudget {
  private final long limit;
  private final AtomicLong held = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  BodyBudget(long limit) {
    this.limit = limit;
  }

  /** Takes {@code n} bytes if they fit; counts a refusal otherwise. */
  boolean take(long n) {
    long h;
    do {
      h = held.get();
      if (h + n > limit) {
        refused.incrementAndGet();
        return false;
      }
    } while (!held.compareAndSet(h, h + n));
    return true;
  }

  void give(long n) {
    if (n > 0) {
      held.addAndGet(-n);
    }
  }

  long held() {
    return held.get();
  }

  long refused() {
    return refused.get();
  }
}
