package dev.wharf.config;

import dev.wharf.core.Durations;
import dev.wharf.store.postgres.PostgresSettings;
import dev.wharf.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;

/** The {@code storage} section: which backend keeps the messages. */
public sealed interface StorageConfig {

  /** A short human description for the start-up line, without secrets. */
  String describe();

  /**
   * Embedded SQLite in one file; one Wharf process.
   *
   * @param pageSize the page size of a new database file (an existing one keeps its own)
   * @param diskFreeLimit publishes are refused while the disk has less room than this (0: never)
   */
  record Sqlite(Path path, int pageSize, long diskFreeLimit) implements StorageConfig {
    /** The store's own default, so a config without {@code page_size} means what the store does. */
    public static final int DEFAULT_PAGE_SIZE = SqliteStore.DEFAULT_PAGE_SIZE;
    public static final long DEFAULT_DISK_FREE_LIMIT = SqliteStore.DEFAULT_DISK_FREE_LIMIT;

    public Sqlite(Path path) {
      this(path, DEFAULT_PAGE_SIZE);
    }

    public Sqlite(Path path, int pageSize) {
      this(path, pageSize, DEFAULT_DISK_FREE_LIMIT);
    }

    @Override
    public String describe() {
      return "sqlite " + path;
    }
  }

  /**
   * A PostgreSQL database shared by many Wharf nodes.
   *
   * @param stallTimeout how long a node waits for the database to answer before it takes the
   *     connection for dead (see {@link PostgresSettings#stallTimeout()})
   */
  record Postgres(String url, String user, String password, int pool, Duration stallTimeout)
      implements StorageConfig {
    public static final Duration DEFAULT_STALL_TIMEOUT = PostgresSettings.DEFAULT_STALL_TIMEOUT;

    public Postgres(String url, String user, String password, int pool) {
      this(url, user, password, pool, DEFAULT_STALL_TIMEOUT);
    }

    @Override
    public String describe() {
      return "postgres " + PostgresSettings.redact(url);
    }

    @Override
    public String toString() {
      return "Postgres[url=" + PostgresSettings.redact(url) + ", user=" + user
          + ", password=***, pool=" + pool + ", stallTimeout=" + stallTimeout + "]";
    }
  }

  Path DEFAULT_SQLITE_PATH = Path.of("./data/wharf.db");

  /**
   * Less would take an ordinary slow moment of a loaded server or machine (a commit's flush
   * behind a checkpoint, a pause of the node's JVM) for a database that stopped answering: the
   * connection closed, the write answered 503 though it may be stored, reads refused a while.
   */
  Duration MIN_STALL_TIMEOUT = Duration.ofSeconds(1);
  Duration MAX_STALL_TIMEOUT = Duration.ofHours(1);

  /** A terabyte: more would refuse every publish on any disk there is. */
  long MAX_DISK_FREE_LIMIT = 1L << 40;

  static StorageConfig defaults() {
    return new Sqlite(DEFAULT_SQLITE_PATH);
  }

  static StorageConfig read(ConfigNode n) {
    String kind = n.string("kind", "sqlite");
    StorageConfig out;
    switch (kind) {
      case "sqlite" -> {
        String path = n.string("path", DEFAULT_SQLITE_PATH.toString());
        if (path.isBlank()) {
          n.problems().add(n.pathOf("path"), "must not be empty");
          path = DEFAULT_SQLITE_PATH.toString();
        }
        int pageSize = n.integer("page_size", Sqlite.DEFAULT_PAGE_SIZE, 512, 65536);
        if (Integer.bitCount(pageSize) != 1) {
          n.problems().add(n.pathOf("page_size"), "must be a power of two, got " + pageSize);
          pageSize = Sqlite.DEFAULT_PAGE_SIZE;
        }
        long diskFreeLimit = n.size("disk_free_limit", Sqlite.DEFAULT_DISK_FREE_LIMIT);
        if (diskFreeLimit < 0 || diskFreeLimit > MAX_DISK_FREE_LIMIT) {
          n.problems().add(n.pathOf("disk_free_limit"),
              "must be between 0 (no limit) and 1024GB, got " + ByteSizes.format(diskFreeLimit));
          diskFreeLimit = Sqlite.DEFAULT_DISK_FREE_LIMIT;
        }
        out = new Sqlite(Path.of(path), pageSize, diskFreeLimit);
        onlyFor(n, "postgres", "url", "user", "password", "pool", "stall_timeout");
      }
      case "postgres" -> {
        String url = n.string("url", null);
        if (url == null || url.isBlank()) {
          n.problems().add(n.pathOf("url"), "required when kind is postgres");
        } else if (!url.startsWith("jdbc:postgresql:")
            && !url.startsWith("postgres://")
            && !url.startsWith("postgresql://")) {
          n.problems()
              .add(
                  n.pathOf("url"),
                  "expected jdbc:postgresql://… or postgres://…, got \""
                      + PostgresSettings.redact(url) + "\"");
        }
        String user = n.string("user", null);
        String password = n.string("password", null);
        int pool = n.integer("pool", 10, 1, 1000);
        Duration stall = n.duration("stall_timeout", Postgres.DEFAULT_STALL_TIMEOUT);
        if (stall.compareTo(MIN_STALL_TIMEOUT) < 0 || stall.compareTo(MAX_STALL_TIMEOUT) > 0) {
          n.problems().add(n.pathOf("stall_timeout"),
              "must be between 1s and 1h, got " + Durations.format(stall));
          stall = Postgres.DEFAULT_STALL_TIMEOUT;
        }
        out = new Postgres(url, user, password, pool, stall);
        onlyFor(n, "sqlite", "path", "page_size", "disk_free_limit");
      }
      default -> {
        n.problems().add(n.pathOf("kind"), "expected sqlite or postgres, got \"" + kind + "\"");
        // Which keys belong is the kind's to say: with none known, none is called unknown.
        return defaults();
      }
    }
    n.rejectUnknown();
    return out;
  }

  /** Keys of the other backend are named as such, not as unknown. */
  private static void onlyFor(ConfigNode n, String kind, String... keys) {
    for (String key : keys) {
      if (n.raw(key) != null) {
        n.problems().add(n.pathOf(key), "only used with kind: " + kind);
      }
    }
  }
}
