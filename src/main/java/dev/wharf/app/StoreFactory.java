package dev.wharf.app;

import dev.wharf.config.StorageConfig;
import dev.wharf.store.Store;
import dev.wharf.store.postgres.PostgresSettings;
import dev.wharf.store.postgres.PostgresStore;
import dev.wharf.store.sqlite.SqliteStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Makes the store the config asks for (not yet started). */
public final class StoreFactory {
  private StoreFactory() {}

  public static Store create(StorageConfig storage) {
    return switch (storage) {
      case StorageConfig.Sqlite s -> sqlite(s.path(), s.pageSize(), s.diskFreeLimit());
      case StorageConfig.Postgres p -> postgres(p);
    };
  }

  private static Store sqlite(Path file, int pageSize, long diskFreeLimit) {
    Path parent = file.toAbsolutePath().getParent();
    try {
      if (parent != null) {
        Files.createDirectories(parent);
      }
    } catch (IOException e) {
      // Java's file errors name only the path, or the JDK's class: say what it means.
      String why =
          e instanceof java.nio.file.NoSuchFileException
              ? "no such file or directory above it"
              : e instanceof java.nio.file.AccessDeniedException
                  ? "permission denied"
                  : e instanceof java.nio.file.FileAlreadyExistsException
                      ? "a file, not a directory, is in its place"
                      : e.getMessage();
      throw new StartupException("cannot create the directory " + parent + ": " + why, e);
    }
    SqliteStore store = new SqliteStore(file, pageSize);
    store.diskFreeLimit(diskFreeLimit);
    return store;
  }

  private static Store postgres(StorageConfig.Postgres p) {
    try {
      return new PostgresStore(
          PostgresSettings.of(p.url(), p.user(), p.password(), p.pool(), p.stallTimeout()));
    } catch (IllegalArgumentException e) {
      throw new StartupException("cannot set up postgres storage: " + e.getMessage(), e);
    }
  }
}
