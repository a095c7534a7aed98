package dev.wharf.cli;

import dev.wharf.app.StartupException;
import dev.wharf.app.WharfApp;
import dev.wharf.config.ConfigWarnings;
import dev.wharf.config.WharfConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code wharf serve}: run the server until SIGTERM/SIGINT. */
@Command(name = "serve", mixinStandardHelpOptions = true, description = "Run the Wharf server.")
final class ServeCommand implements Runnable {
  // Held strongly: java.util.logging forgets the level of a logger nobody references.
  private static final Logger NETTY = Logger.getLogger("io.netty");
  private static final Logger POOL = Logger.getLogger("com.zaxxer.hikari");

  @ParentCommand Main main;
  @Spec CommandSpec spec;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description = "config file (default: ./wharf.yaml when present, else built-in defaults)")
  Path config;

  @Override
  public void run() {
    serve(config, main.env, spec.commandLine().getOut(), spec.commandLine().getErr());
  }

  /** Runs the server until SIGTERM/SIGINT; {@link PlainServe} calls it without picocli. */
  static void serve(Path config, Map<String, String> env, PrintWriter out, PrintWriter err) {
    WharfConfig cfg = CliConfig.load(config, env);
    // The one start line below says what matters; the libraries' start-up chatter (the HTTP
    // server's, the PostgreSQL pool's) is noise, but their warnings are not.
    if (!env.containsKey("WHARF_VERBOSE")) {
      NETTY.setLevel(Level.WARNING);
      POOL.setLevel(Level.WARNING);
    }
    // Taken before the start, which may take seconds (a WAL to recover): a stop asked for
    // meanwhile is a clean stop once the server is up, not the JVM's exit 143. Main took it
    // already, unless the command runs in-process.
    CountDownLatch stopAsked = StopSignals.install();
    if (stopAsked.getCount() == 0) {
      // Asked to stop before it started: nothing is opened, so nothing is left half-done.
      out.println("wharf stopped");
      out.flush();
      return;
    }
    WharfApp app;
    try {
      app = WharfApp.start(cfg);
    } catch (StartupException e) {
      throw new CliException(CliException.FAILED, e.getMessage());
    }
    // Other ends of the JVM (SIGHUP, or signals the JVM keeps for itself) run shutdown hooks:
    // close the server, then the broker, then the store, there too.
    Runtime.getRuntime().addShutdownHook(
        Thread.ofPlatform().name("wharf-shutdown").unstarted(() -> stop(app, out)));
    out.println(app.startLine());
    out.flush();
    ConfigWarnings.of(cfg).forEach(w -> err.println("wharf: warning: " + w));
    err.flush();
    try {
      stopAsked.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // The stop is ours to finish: the command then returns and the process exits 0.
    stop(app, out);
  }

  private static void stop(WharfApp app, PrintWriter out) {
    synchronized (app) {
      if (app.isClosed()) {
        return;
      }
      app.close();
    }
    out.println("wharf stopped");
    out.flush();
  }
}
