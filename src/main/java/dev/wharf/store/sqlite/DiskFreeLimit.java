package dev.wharf.store.sqlite;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Refuses publishes while the disk holding the database has less room than a limit, as a broker's
 * disk alarm does. A disk filled to its last byte refuses acks, deletions and the checkpoints
 * that give room back as well (see {@link RoomReserve}); one stopped short of it still takes
 * them, so consumers drain what is queued and an operator can purge. Free space is read at most
 * every 100 ms, by the first publish after that (a {@code statfs}, a few microseconds).
 */
final class DiskFreeLimit {
  private static final Logger LOG = Logger.getLogger(DiskFreeLimit.class.getName());
  /** The default limit: room for some seconds of the WAL's growth under batch publishes. */
  static final long DEFAULT_BYTES = 50L << 20;
  static final long CHECK_EVERY_NANOS = 100_000_000L;

  private final Path dir;
  private final long limit;
  private final LongSupplier usable;
  private final LongSupplier nanos;
  private final AtomicLong nextCheck;
  /** Why publishes are refused now, or null. */
  private volatile String refusal;

  /**
   * @param limit bytes that must stay free; 0 turns the limit off
   * @param usable the free space of the disk holding {@code dir} (see {@link #of})
   */
  DiskFreeLimit(Path dir, long limit, LongSupplier usable, LongSupplier nanos) {
    this.dir = dir;
    this.limit = limit;
    this.usable = usable;
    this.nanos = nanos;
    this.nextCheck = new AtomicLong(nanos.getAsLong());
  }

  /**
   * The limit for the disk holding {@code database}, whose room is the disk's free space and
   * {@code inDatabase}, the bytes of the database's own free pages: a purge frees pages that new
   * messages take before the file grows, and gives the disk nothing back.
   */
  static DiskFreeLimit of(Path database, long limit, LongSupplier inDatabase) throws IOException {
    Path dir = database.toAbsolutePath().getParent();
    FileStore disk = Files.getFileStore(dir);
    return new DiskFreeLimit(dir, limit, () -> {
      try {
        return disk.getUsableSpace() + inDatabase.getAsLong();
      } catch (IOException e) {
        // Unknown: no reason to refuse anything.
        return Long.MAX_VALUE;
      }
    }, System::nanoTime);
  }

  /** Why a publish is refused now, or null when the disk has room. */
  String refusal() {
    if (limit <= 0) {
      return null;
    }
    long now = nanos.getAsLong();
    long next = nextCheck.get();
    if (now - next >= 0 && nextCheck.compareAndSet(next, now + CHECK_EVERY_NANOS)) {
      check();
    }
    return refusal;
  }

  /** Reads the free space now. */
  void check() {
    if (limit <= 0) {
      return;
    }
    long free = usable.getAsLong();
    String was = refusal;
    if (free < limit) {
      refusal = "the disk holding " + dir + " has " + mb(free) + " free (with the database's"
          + " free pages), less than storage.disk_free_limit (" + mb(limit) + "): publishes are"
          + " refused until it has more";
      if (was == null) {
        LOG.warning(refusal + "; acks, purges and deletions go on");
      }
    } else {
      refusal = null;
      if (was != null) {
        LOG.info("the disk holding " + dir + " has " + mb(free) + " free again (with the"
            + " database's free pages): publishes are taken");
      }
    }
  }

  /** Bytes in MB to one decimal, as the store's room messages give them. */
  static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1048576.0);
  }
}
