package dev.wharf.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the commits in a SQLite WAL file wrote: frames (whole pages) per commit, and the pages
 * most commits wrote again. Every frame is a full page however little of it changed, so this is
 * where a commit's bytes go, and what a change to the schema or to the writes would save. Copy
 * the {@code -wal} file of a running server mid-load and read the copy; with {@code db=} the
 * pages that are the root of a table or index are named.
 *
 * <p>{@code java -cp target/wharf-all.jar dev.wharf.bench.WalFrames wal=/tmp/copy.db-wal
 * db=/path/to/wharf.db top=12}
 */
public final class WalFrames {
  private static final int HEADER = 32;
  private static final int FRAME_HEADER = 24;

  /** The committed transactions found, each as the page numbers of its frames in order. */
  record Commits(int pageSize, List<int[]> pages) {
    long frames() {
      long n = 0;
      for (int[] c : pages) {
        n += c.length;
      }
      return n;
    }

    /** Page number to the share of commits that wrote it, most written first. */
    List<Map.Entry<Integer, Double>> hottest(int top) {
      Map<Integer, Integer> in = new HashMap<>();
      for (int[] c : pages) {
        Set<Integer> once = new LinkedHashSet<>();
        for (int p : c) {
          once.add(p);
        }
        for (int p : once) {
          in.merge(p, 1, Integer::sum);
        }
      }
      return in.entrySet().stream()
          .sorted(Map.Entry.<Integer, Integer>comparingByValue().reversed())
          .limit(top)
          .map(e -> Map.entry(e.getKey(), (double) e.getValue() / pages.size()))
          .toList();
    }
  }

  private WalFrames() {}

  /**
   * Reads the frames of the WAL's current generation (its header's salts), up to the last commit;
   * frames of an older generation, or of a transaction not yet committed, are left out.
   */
  static Commits read(Path wal) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(wal));
    if (b.remaining() < HEADER) {
      throw new IOException(wal + " is shorter than a WAL header");
    }
    int magic = b.getInt(0);
    if (magic != 0x377f0682 && magic != 0x377f0683) {
      throw new IOException(wal + " is not a SQLite WAL file");
    }
    int pageSize = b.getInt(8);
    int salt1 = b.getInt(16);
    int salt2 = b.getInt(20);
    List<int[]> commits = new ArrayList<>();
    List<Integer> open = new ArrayList<>();
    for (int at = HEADER; at + FRAME_HEADER + pageSize <= b.limit(); at += FRAME_HEADER + pageSize) {
      if (b.getInt(at + 8) != salt1 || b.getInt(at + 12) != salt2) {
        break;
      }
      open.add(b.getInt(at));
      if (b.getInt(at + 4) != 0) {
        commits.add(open.stream().mapToInt(Integer::intValue).toArray());
        open.clear();
      }
    }
    return new Commits(pageSize, commits);
  }

  /** Root page to the name of its table or index; page 1 holds the header and the schema. */
  static Map<Integer, String> roots(Path db) throws SQLException {
    Map<Integer, String> out = new HashMap<>();
    out.put(1, "header and schema");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:file:" + db + "?mode=ro");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(
            "SELECT type, name, rootpage FROM sqlite_master WHERE rootpage > 0")) {
      while (rs.next()) {
        out.put(rs.getInt(3), rs.getString(1) + " " + rs.getString(2) + " (root)");
      }
    }
    return out;
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = PgBenchLoad.args(argv, Map.of("top", "12"));
    if (!a.containsKey("wal")) {
      throw new IllegalArgumentException("wal=<file> is required");
    }
    Commits c = read(Path.of(a.get("wal")));
    Map<Integer, String> names = a.containsKey("db") ? roots(Path.of(a.get("db"))) : Map.of();
    int n = c.pages().size();
    if (n == 0) {
      System.out.println("no committed frames");
      return;
    }
    int[] sizes = c.pages().stream().mapToInt(p -> p.length).sorted().toArray();
    System.out.printf(
        "%d commits, %d frames of %d B: per commit %.1f frames (p50 %d, p90 %d), %.1f KB%n",
        n, c.frames(), c.pageSize(), (double) c.frames() / n, sizes[n / 2],
        sizes[(int) (n * 0.9)], (double) c.frames() * (c.pageSize() + FRAME_HEADER) / n / 1024);
    System.out.println("pages written by the most commits:");
    for (Map.Entry<Integer, Double> e : c.hottest(Integer.parseInt(a.get("top")))) {
      System.out.printf("  page %8d  in %3.0f%% of commits  %s%n", e.getKey(), 100 * e.getValue(),
          names.getOrDefault(e.getKey(), ""));
    }
  }
}
