package dev.wharf.app;

import dev.wharf.config.StorageConfig;
import dev.wharf.store.Store;
import dev.wharf.store.sqlite.SqliteStore;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Makes the store the config asks for (not yet started). */
public final class StoreFactory {
  /**
   * The PostgreSQL backend is looked up by name so that this build works, and says so plainly,
   * before that backend exists.
   */
  static final String POSTGRES_CLASS = "dev.wharf.store.postgres.PostgresStore";

  private StoreFactory() {}

  public static Store create(StorageConfig storage) {
    return switch (storage) {
      case StorageConfig.Sqlite s -> sqlite(s.path());
      case StorageConfig.Postgres p -> postgres(p);
    };
  }

  private static Store sqlite(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    try {
      if (parent != null) {
        Files.createDirectories(parent);
      }
    } catch (IOException e) {
      throw new StartupException("cannot create the directory " + parent + ": " + e, e);
    }
    return new SqliteStore(file);
  }

  private static Store postgres(StorageConfig.Postgres p) {
    Class<?> type;
    try {
      type = Class.forName(POSTGRES_CLASS);
    } catch (ClassNotFoundException e) {
      throw new StartupException(
          "storage kind postgres is not available in this build yet; use kind: sqlite", e);
    }
    try {
      Constructor<?> c = type.getConstructor(StorageConfig.Postgres.class);
      return (Store) c.newInstance(p);
    } catch (NoSuchMethodException e) {
      throw new StartupException(
          POSTGRES_CLASS + " has no constructor taking StorageConfig.Postgres", e);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      throw new StartupException("cannot set up postgres storage: " + cause.getMessage(), cause);
    } catch (ReflectiveOperationException e) {
      throw new StartupException("cannot set up postgres storage: " + e, e);
    }
  }
}
