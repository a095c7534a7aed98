package dev.wharf.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Finds the server's process from its listening port and reads its resident memory (Linux). */
final class ServerProcess {
  private static final int LISTEN = 0x0A;

  private ServerProcess() {}

  /** The pid of the process listening on {@code port}, or -1 when it cannot be found. */
  static long pidListeningOn(int port) {
    String inode = listeningInode(port);
    if (inode == null) {
      return -1;
    }
    String target = "socket:[" + inode + "]";
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
          for (Path fd : fds) {
            if (target.equals(readLink(fd))) {
              return Long.parseLong(proc.getFileName().toString());
            }
          }
        } catch (IOException | SecurityException e) {
          // another user's process, or one that just exited
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return -1;
  }

  /** VmRSS of {@code pid} in kB, or -1 when it cannot be read. */
  static long rssKb(long pid) {
    if (pid <= 0) {
      return -1;
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** Open sockets of {@code pid} (accepted connections among them), or -1. */
  static long socketCount(long pid) {
    if (pid <= 0) {
      return -1;
    }
    long n = 0;
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : fds) {
        String link = readLink(fd);
        if (link != null && link.startsWith("socket:")) {
          n++;
        }
      }
    } catch (IOException | SecurityException e) {
      return -1;
    }
    return n;
  }

  private static String listeningInode(int port) {
    String hexPort = String.format(Locale.ROOT, "%04X", port);
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      try {
        for (String line : Files.readAllLines(Path.of(table))) {
          // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
          String[] f = line.trim().split("\\s+");
          if (f.length < 10 || !f[1].contains(":")) {
            continue;
          }
          String localPort = f[1].substring(f[1].lastIndexOf(':') + 1);
          if (localPort.equalsIgnoreCase(hexPort) && Integer.parseInt(f[3], 16) == LISTEN) {
            return f[9];
          }
        }
      } catch (IOException | NumberFormatException e) {
        // no such table (no IPv6) or an odd line: try the next
      }
    }
    return null;
  }

  private static String readLink(Path fd) {
    try {
      return Files.readSymbolicLink(fd).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return null;
    }
  }
}
