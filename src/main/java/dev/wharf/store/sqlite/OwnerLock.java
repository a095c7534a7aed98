package dev.wharf.store.sqlite;

import dev.wharf.store.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One process's claim on a database file, held while its store is open. SQLite would let a
 * second process open the file, but the store keeps leases and the next seq in memory: two
 * servers on one file would lease a message twice and collide on seqs. The lock is on a file of
 * its own beside the database ({@code <db>.lock}): a POSIX lock on the database file itself would
 * be dropped by SQLite's own closes of it.
 */
final class OwnerLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private OwnerLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Takes the lock, or throws naming the file when another store (any process) holds it. */
  static OwnerLock acquire(Path database) {
    Path file = Path.of(database.toAbsolutePath() + ".lock");
    FileChannel channel;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    } catch (java.nio.file.AccessDeniedException e) {
      throw new StoreException("cannot open the lock file " + file + ": permission denied", e);
    } catch (IOException e) {
      throw new StoreException("cannot open the lock file " + file + ": " + e, e);
    }
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    } catch (IOException e) {
      closeQuietly(channel);
      throw new StoreException("cannot lock " + file + ": " + e, e);
    }
    if (lock == null) {
      closeQuietly(channel);
      throw new StoreException(
          "another Wharf process is using " + database + " (it holds " + file
              + "); SQLite storage serves one process");
    }
    return new OwnerLock(channel, lock);
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException ignored) {
      // the channel's close releases it anyway
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // nothing left to do
    }
  }
}
