package dev.wharf.store;

import java.time.Instant;

/**
 * Page through a queue's messages in publish order.
 *
 * @param state null for every state
 * @param delayed with READY: true = only delayed, false = only visible now, null = both
 * @param originalQueue when set, only messages that died in that queue (DLQ browsing)
 * @param afterSeq exclusive cursor; 0 from the start
 */
public record BrowseRequest(
    String queue,
    MessageState state,
    Boolean delayed,
    String originalQueue,
    Instant now,
    long afterSeq,
    int limit) {}
