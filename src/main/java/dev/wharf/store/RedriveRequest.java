package dev.wharf.store;

import java.time.Instant;
import java.util.List;

/**
 * Move dead messages from {@code deadLetterQueue} back to {@code originalQueue}, ready, attempt 0.
 *
 * @param ids null for all that came from originalQueue
 */
public record RedriveRequest(
    String deadLetterQueue, String originalQueue, List<String> ids, Instant now, int limit) {}
