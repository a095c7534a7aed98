package dev.wharf.store.sqlite;

/** When a write's caller is answered. */
enum WriteAnswer {
  /** Once an fsync has covered its batch. */
  DURABLE,
  /**
   * At its batch's commit, with an fsync scheduled for it all the same; once an fsync has
   * covered it while a write failure stands ({@link WriteHealth}).
   */
  COMMITTED,
  /**
   * A claim, whose result is a list of deliveries: at commit when every message in it is already
   * durable (an empty one always is), else once they all are.
   */
  CLAIM
}
