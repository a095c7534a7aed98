package dev.wharf.app;

import dev.wharf.config.ConfigLoader;
import dev.wharf.http.server.HttpServer;
import dev.wharf.store.sqlite.SqliteStore;
import java.util.concurrent.CompletableFuture;
import org.slf4j.LoggerFactory;

/**
 * Loads, on the second core, what a server start will need while the first is still parsing the
 * command line: the SQLite driver's native library, the YAML parser and the HTTP server's classes.
 * After a crash, the time until the server answers again is mostly such loading (see
 * docs/benchmark-log.md), and it need not happen in a line.
 *
 * <p>Everything here only loads; a failure is left for the real start to report, where it has
 * the context to say what it was doing. SQLite is the default storage, so its library is loaded
 * whatever the config says; a start on PostgreSQL spends that on a spare core.
 */
public final class ServerWarmup {
  private static CompletableFuture<Void> loggingReady;

  private ServerWarmup() {}

  /**
   * Starts the warm-up once per process; later calls return the first call's future. It completes
   * once logging is initialised: the SQLite driver and Netty both ask for loggers, and SLF4J
   * prints a warning when two threads do so while it initialises, so a start waits for it before
   * opening anything.
   */
  public static synchronized CompletableFuture<Void> begin() {
    if (loggingReady != null) {
      return loggingReady;
    }
    CompletableFuture<Void> ready = new CompletableFuture<>();
    loggingReady = ready;
    platform(
        "wharf-warmup",
        () -> {
          quietly(LoggerFactory::getILoggerFactory);
          ready.complete(null);
          platform(
              "wharf-warmup-http",
              () -> {
                quietly(ConfigLoader::preload);
                quietly(HttpServer::preload);
              });
          quietly(SqliteStore::preload);
        });
    return ready;
  }

  private static void platform(String name, Runnable task) {
    Thread.ofPlatform().name(name).daemon().start(task);
  }

  private static void quietly(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException | LinkageError e) {
      // the start does the same work again and reports the failure
    }
  }
}
