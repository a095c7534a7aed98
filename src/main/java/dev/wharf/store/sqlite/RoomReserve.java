package dev.wharf.store.sqlite;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A file of zeros kept beside the database, so that a full disk can still take the writes that
 * make room. On SQLite a purge or a delete needs room too: it appends the pages it changes to the
 * WAL, and the WAL cannot start over until a checkpoint has grown the database file by the pages
 * it added. A disk filled by messages would otherwise refuse the very writes that would empty it.
 * The writer deletes this file when such a write fails for lack of room, and only then (see
 * {@link GroupCommitWriter#submitFreeingRoom}), and makes it again from what that left of its
 * room, or later once the disk has room for it and as much again. The room the checkpoint needs
 * to grow the database file by the WAL's pages beyond its end is kept apart, by refusing
 * publishes ({@link CheckpointRoom}): this file is the deletion's own frames'.
 */
class RoomReserve {
  private static final Logger LOG = Logger.getLogger(RoomReserve.class.getName());
  /**
   * 8 MB. Purging 6,674 messages of 4 KB from a full 40 MB tmpfs took under 2 MB of the room a
   * 4 MB file gave (the pending checkpoint grew the database file by 1.7 MB, the purge's own
   * frames 0.3 MB); twice that leaves room for larger pages and deeper indexes.
   */
  static final long DEFAULT_BYTES = 8L << 20;

  /** Left to other writes when the file is made again from its own room. */
  static final long LEFT_FREE = 1L << 20;

  private final Path file;
  private final long bytes;
  /** Whether the file is there, whole; read by the checkpointer on every pass. */
  private volatile boolean held;

  RoomReserve(Path database, long bytes) {
    this.file = Path.of(database + ".reserve");
    this.bytes = bytes;
  }

  Path file() {
    return file;
  }

  boolean held() {
    return held;
  }

  /**
   * Makes the file when it is missing and the disk has room for it and as much again, so that
   * making it never fills a disk itself; or, {@code fromItsOwnRoom}, right after a deletion was
   * given its room, from what is left of that room but {@link #LEFT_FREE}: a smaller file, till
   * the next time it is given up. Returns whether it is there now.
   */
  synchronized boolean ensure(boolean fromItsOwnRoom) {
    if (held || bytes <= 0) {
      return held;
    }
    try {
      if (Files.isRegularFile(file) && Files.size(file) > 0) {
        held = true;
        return true;
      }
      Path dir = file.toAbsolutePath().getParent();
      long usable = Files.getFileStore(dir).getUsableSpace();
      long size = fromItsOwnRoom ? Math.min(bytes, usable - LEFT_FREE) : bytes;
      if (fromItsOwnRoom ? size < bytes / 4 : usable < 2 * bytes) {
        return false;
      }
      // Zeros written, not a length set: a sparse file would hold no room at all.
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
        for (long done = 0; done < size; ) {
          zeros.clear().limit((int) Math.min(zeros.capacity(), size - done));
          done += ch.write(zeros);
        }
        ch.force(true);
      }
      held = true;
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.FINE, "no room kept for making room: " + e, e);
      try {
        Files.deleteIfExists(file);
      } catch (IOException ignored) {
        // A part left behind is the room kept from the next try on.
      }
      return false;
    }
  }

  /**
   * Deletes the file, giving its room to the write under way on the writer's connection, which
   * tests that stand for a full disk with SQLite's page limit raise here. Returns whether there
   * was room to give.
   */
  synchronized boolean release(Connection writer) {
    if (!held) {
      return false;
    }
    held = false;
    try {
      Files.deleteIfExists(file);
      return true;
    } catch (IOException e) {
      LOG.log(Level.WARNING, "could not delete " + file, e);
      return false;
    }
  }
}
