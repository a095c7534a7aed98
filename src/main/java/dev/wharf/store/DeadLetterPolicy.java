package dev.wharf.store;

/**
 * What the core decided about dead messages of one queue; the store only carries it out.
 *
 * @param maxAttempts deliveries after which a retry or lease expiry goes to the DLQ; 0 = never
 * @param deadLetterQueue where dead messages go; null = drop them
 */
public record DeadLetterPolicy(int maxAttempts, String deadLetterQueue) {
  /** The dead reason of a message whose attempts are used up, when none is given. */
  public static final String ATTEMPTS_USED_UP = "max_attempts_exceeded";
  /** The dead reason of a message a consumer nacked as dead, when none is given. */
  public static final String NACKED_DEAD = "nacked_dead";

  public boolean attemptsUsedUp(int attempt) {
    return maxAttempts > 0 && attempt >= maxAttempts;
  }
}
