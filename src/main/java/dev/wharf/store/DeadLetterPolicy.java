package dev.wharf.store;

/**
 * What the core decided about dead messages of one queue; the store only carries it out.
 *
 * @param maxAttempts deliveries after which a retry or lease expiry goes to the DLQ; 0 = never
 * @param deadLetterQueue where dead messages go; null = drop them
 */
public record DeadLetterPolicy(int maxAttempts, String deadLetterQueue) {

  public boolean attemptsUsedUp(int attempt) {
    return maxAttempts > 0 && attempt >= maxAttempts;
  }
}
