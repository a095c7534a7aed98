package dev.wharf.store;

/**
 * A write into a queue the store deleted after the caller last saw it: nothing was written. A
 * publish or redrive that raced the queue's deletion lands either before it (and is deleted with
 * the queue) or after it, and fails with this, never in a queue that is no longer there.
 */
public final class QueueGone extends RuntimeException {
  private final String queue;

  public QueueGone(String queue) {
    super("queue \"" + queue + "\" was deleted");
    this.queue = queue;
  }

  public String queue() {
    return queue;
  }
}
