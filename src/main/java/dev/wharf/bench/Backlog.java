package dev.wharf.bench;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Messages published and not yet acked, as the harness counts them. Publishers block while it is
 * at its bound, so a consume run measures receive+ack at a rate the server can sustain, with a
 * backlog that stays bounded, instead of consumers racing publishers for the same server while the
 * backlog grows without end. A bound of 0 means publishers never wait.
 */
final class Backlog {
  private final long bound;
  private final Semaphore room;

  Backlog(long bound) {
    this.bound = bound;
    this.room = new Semaphore((int) Math.min(Integer.MAX_VALUE, Math.max(bound, 0)));
  }

  /**
   * Takes room for {@code messages} before a publish, blocking while there is none; returns false
   * when the phase ended first.
   */
  boolean take(Phase phase, int messages) {
    if (bound == 0) {
      return true;
    }
    try {
      while (phase.running()) {
        if (room.tryAcquire(messages, 50, TimeUnit.MILLISECONDS)) {
          return true;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  /** Takes room for {@code messages} if there is some now, without waiting. */
  boolean tryTake(int messages) {
    return bound == 0 || room.tryAcquire(messages);
  }

  /** Gives back room taken for a publish that failed. */
  void unused(int messages) {
    if (bound > 0) {
      room.release(messages);
    }
  }

  void acked(int messages) {
    if (bound > 0) {
      room.release(messages);
    }
  }
}
