package dev.wharf.store;

/**
 * A publish refused because the disk holding the data has less room than the configured limit,
 * or than a checkpoint needs to copy the WAL back (SQLite). Nothing failed: the refusal keeps the
 * room a full disk would need, so its message is the whole reason, to be shown as it is rather
 * than as a failure.
 */
public final class LowOnDisk extends StorageFull {
  public LowOnDisk(String message) {
    super(message, null);
  }
}
