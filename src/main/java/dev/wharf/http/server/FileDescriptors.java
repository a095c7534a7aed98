package dev.wharf.http.server;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.logging.Logger;

/** How many connections the process's file-descriptor limit leaves room for. */
public final class FileDescriptors {
  private static final Logger LOG = Logger.getLogger(FileDescriptors.class.getName());

  /**
   * Descriptors kept back from connections: the JVM's own files and the store's (SQLite opens the
   * database, its WAL and shared-memory file once per connection), with room to spare.
   */
  static final int RESERVED = 256;

  private FileDescriptors() {}

  /**
   * {@code wanted}, or less when the process may not open that many descriptors besides {@link
   * #RESERVED} (then a warning says what to raise); never less than one.
   */
  static int roomFor(int wanted) {
    long max = limit();
    long room = max - RESERVED;
    if (max <= 0 || room >= wanted) {
      return wanted;
    }
    int lowered = (int) Math.max(1, room);
    LOG.warning(
        "server.max_connections is " + wanted + " but this process may open only " + max
            + " files (ulimit -n); serving at most " + lowered
            + " connections at once. Raise the limit (ulimit -n, or LimitNOFILE= under systemd)"
            + " to allow more");
    return lowered;
  }

  /**
   * Connections the process's limit leaves room for besides {@link #RESERVED} (at least one), or
   * {@link Integer#MAX_VALUE} where the limit cannot be read.
   */
  public static int room() {
    long max = limit();
    return max <= 0 ? Integer.MAX_VALUE : (int) Math.clamp(max - RESERVED, 1, Integer.MAX_VALUE);
  }

  /** The process's open-file limit (the JVM raises it to the hard limit at start), or -1. */
  private static long limit() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os
        ? os.getMaxFileDescriptorCount()
        : -1;
  }
}
