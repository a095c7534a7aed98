package dev.wharf.bench;

import dev.wharf.store.sqlite.SqliteSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What this machine's disk and SQLite allow without Wharf: one thread inserting plain 1 KB
 * messages, one row per statement, committing every N rows with {@code synchronous=FULL} (an fsync
 * per commit). The server's publish figures are worth reading against it, since machines (and one
 * machine's hours) differ several-fold in fsync time.
 *
 * <p>{@code schema=wharf} (the default) inserts into Wharf's own schema, with its indexes;
 * {@code schema=plain} into a table of a rowid and a blob, the simplest form of the same write,
 * which is how a figure for a bare SQLite on another machine is usually taken. {@code page=} sets
 * the page size (SQLite's own 4096 by default; Wharf's store uses 8192).
 *
 * <p>{@code java --enable-native-access=ALL-UNNAMED -cp target/wharf-all.jar
 * dev.wharf.bench.SqliteFloorBench dir=/tmp commits=1,100,1000 seconds=5 schema=wharf page=4096}
 */
public final class SqliteFloorBench {
  private static final String INSERT =
      "INSERT INTO messages(seq, id, queue, state, content_type, payload, attempt, published_at,"
          + " visible_at) VALUES (?, ?, 'floor', 0, 1, ?, 0, ?, ?)";

  /** The table rows go into: Wharf's messages table, or a bare one. */
  enum Schema {
    WHARF,
    PLAIN;

    static Schema parse(String s) {
      return switch (s) {
        case "wharf" -> WHARF;
        case "plain" -> PLAIN;
        default -> throw new IllegalArgumentException("schema is wharf or plain, got " + s);
      };
    }
  }

  private SqliteFloorBench() {}

  /** Rows a second for one size of commit. */
  record Floor(int rowsPerCommit, long rows, double rowsPerSecond) {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = PgBenchLoad.args(argv, Map.of(
        "dir", System.getProperty("java.io.tmpdir"), "commits", "1,100,1000", "seconds", "5",
        "schema", "wharf", "page", "4096"));
    Path dir = Path.of(a.get("dir"));
    double seconds = Double.parseDouble(a.get("seconds"));
    Schema schema = Schema.parse(a.get("schema"));
    int page = Integer.parseInt(a.get("page"));
    for (String n : a.get("commits").split(",")) {
      Floor f = measure(dir, Integer.parseInt(n.trim()), seconds, schema, page);
      System.out.printf(
          "sqlite floor (%s schema, %d B pages): %d rows per commit, %.0f rows/s, %.0f commits/s%n",
          a.get("schema"), page, f.rowsPerCommit(), f.rowsPerSecond(),
          f.rowsPerSecond() / f.rowsPerCommit());
    }
  }

  /** Inserts for {@code seconds} into a fresh database file in {@code dir}, then deletes it. */
  static Floor measure(Path dir, int rowsPerCommit, double seconds, Schema schema, int pageSize)
      throws Exception {
    Path file = Files.createTempFile(dir, "wharf-floor-", ".db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      try (Statement s = c.createStatement()) {
        // Before the first table: an empty file takes any page size.
        s.execute("PRAGMA page_size = " + pageSize);
        s.execute("PRAGMA journal_mode = WAL");
        s.execute("PRAGMA synchronous = FULL");
        if (schema == Schema.PLAIN) {
          s.execute("CREATE TABLE plain(seq INTEGER PRIMARY KEY, payload BLOB NOT NULL)");
        }
      }
      if (schema == Schema.WHARF) {
        SqliteSchema.migrate(c);
      }
      c.setAutoCommit(false);
      byte[] payload = new byte[1024];
      Arrays.fill(payload, (byte) 'x');
      long seq = 0;
      long start = System.nanoTime();
      long end = start + (long) (seconds * 1e9);
      String sql =
          schema == Schema.WHARF ? INSERT : "INSERT INTO plain(seq, payload) VALUES (?, ?)";
      try (PreparedStatement ins = c.prepareStatement(sql)) {
        while (System.nanoTime() < end) {
          for (int i = 0; i < rowsPerCommit; i++) {
            seq++;
            ins.setLong(1, seq);
            if (schema == Schema.WHARF) {
              long now = System.currentTimeMillis();
              // Time-ordered like Wharf's own ids, so the unique index grows at its end.
              ins.setString(2, String.format("%013d%013d", now, seq));
              ins.setBytes(3, payload);
              ins.setLong(4, now);
              ins.setLong(5, now);
            } else {
              ins.setBytes(2, payload);
            }
            ins.executeUpdate();
          }
          c.commit();
        }
      }
      return new Floor(rowsPerCommit, seq, seq / ((System.nanoTime() - start) / 1e9));
    } finally {
      for (String suffix : List.of("", "-wal", "-shm")) {
        Files.deleteIfExists(Path.of(file + suffix));
      }
    }
  }
}
