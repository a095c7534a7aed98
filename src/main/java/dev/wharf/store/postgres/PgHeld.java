package dev.wharf.store.postgres;

/**
 * The columns of a locked row that a settle, a reaper or a redrive decides on. {@code superseded}:
 * a newer publish with its key was made while it was leased (set on leased rows only).
 */
record PgHeld(long seq, String queue, int state, String leaseId, long leaseUntil, int attempt,
    String originalQueue, boolean superseded) {

  PgHeld withQueue(String newQueue, int newState, String newOrigin) {
    return new PgHeld(seq, newQueue, newState, null, 0, 0, newOrigin, false);
  }

  PgHeld ready(int attemptChange) {
    return new PgHeld(seq, queue, 0, null, 0, Math.max(0, attempt + attemptChange), originalQueue,
        false);
  }
}
