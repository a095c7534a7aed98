package dev.wharf.store.sqlite;

import java.util.function.LongConsumer;

/**
 * The stages of a write, each in nanoseconds: what a slow write waited for. Called on the
 * writer's and the fsync thread, so each must be quick: every answer waits for it.
 *
 * @param queued the oldest operation of a batch, from its submission to the batch's start
 * @param ran a batch's operations and its commit
 * @param synced a WAL fsync that succeeded
 * @param madeDurable a committed batch, from its commit to the return of the fsync covering it
 */
record WriterStages(
    LongConsumer queued, LongConsumer ran, LongConsumer synced, LongConsumer madeDurable) {
  static final WriterStages NONE = new WriterStages(n -> {}, n -> {}, n -> {}, n -> {});
}
