package dev.wharf.cli;

import dev.wharf.app.StartupException;
import dev.wharf.app.WharfApp;
import dev.wharf.config.WharfConfig;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code wharf serve}: run the server until SIGTERM/SIGINT. */
@Command(name = "serve", mixinStandardHelpOptions = true, description = "Run the Wharf server.")
final class ServeCommand implements Runnable {
  @ParentCommand Main main;
  @Spec CommandSpec spec;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description = "config file (default: ./wharf.yaml when present, else built-in defaults)")
  Path config;

  @Override
  public void run() {
    WharfConfig cfg = CliConfig.load(config, main.env);
    WharfApp app;
    try {
      app = WharfApp.start(cfg);
    } catch (StartupException e) {
      throw new CliException(CliException.FAILED, e.getMessage());
    }
    CountDownLatch stopped = new CountDownLatch(1);
    // SIGTERM and SIGINT run shutdown hooks: close the server, then the broker, then the store.
    Runtime.getRuntime()
        .addShutdownHook(
            Thread.ofPlatform()
                .name("wharf-shutdown")
                .unstarted(
                    () -> {
                      app.close();
                      stopped.countDown();
                    }));
    spec.commandLine().getOut().println(app.startLine());
    spec.commandLine().getOut().flush();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      app.close();
    }
  }
}
