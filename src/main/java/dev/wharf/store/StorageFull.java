package dev.wharf.store;

/**
 * A write failed because the disk holding the data has no room (or the database is at its size
 * limit): an operator's matter, which passes by itself once there is room again. A {@link
 * LowOnDisk} is a publish refused ahead of that, while there is still room.
 */
public sealed class StorageFull extends StoreException permits LowOnDisk {
  public StorageFull(String message, Throwable cause) {
    super(message, cause);
  }

  /** Whether {@code e} or one of its causes is a {@link StorageFull}. */
  public static boolean in(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StorageFull) {
        return true;
      }
    }
    return false;
  }
}
