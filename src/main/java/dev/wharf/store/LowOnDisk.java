package dev.wharf.store;

/**
 * A publish refused because the disk holding the data has less room than the configured limit.
 * Nothing failed: the refusal comes ahead of a full disk, so its message is the whole reason, to
 * be shown as it is rather than as a failure.
 */
public final class LowOnDisk extends StorageFull {
  public LowOnDisk(String message) {
    super(message, null);
  }
}
