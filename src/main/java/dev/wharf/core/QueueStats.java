package dev.wharf.core;

import dev.wharf.store.QueueCounts;

/**
 * A queue's depth by state, the depth of its DLQ (dead messages that came from it) and what it has
 * done since this process started.
 */
public record QueueStats(
    QueueCounts counts,
    long dead,
    long published,
    long acked,
    long nacked,
    long deadLettered,
    long expired,
    long dropped) {}
