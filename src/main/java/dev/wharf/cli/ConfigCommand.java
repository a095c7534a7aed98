package dev.wharf.cli;

import dev.wharf.config.ConfigException;
import dev.wharf.config.ConfigLoader;
import dev.wharf.config.ConfigWarnings;
import dev.wharf.config.QueueConfig;
import dev.wharf.config.StorageConfig;
import dev.wharf.config.WharfConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code wharf config check}: validate a config file without starting anything. */
@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    description = "Work with the config file.",
    subcommands = ConfigCommand.Check.class)
final class ConfigCommand implements Runnable {
  /** The queues the summary names; the rest are counted. */
  private static final int LISTED_QUEUES = 20;

  @ParentCommand Main main;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw Main.missingCommand(spec);
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = "List every error in the config by path; exit 1 when there is any.")
  static final class Check implements java.util.concurrent.Callable<Integer> {
    @ParentCommand ConfigCommand parent;
    @Spec CommandSpec spec;

    @Option(
        names = {"-c", "--config"},
        paramLabel = "FILE",
        description = "config file (default: ./wharf.yaml)")
    Path config;

    @Override
    public Integer call() {
      Path file = config != null ? config : CliConfig.DEFAULT_FILE;
      PrintWriter out = spec.commandLine().getOut();
      WharfConfig cfg;
      try {
        cfg = new ConfigLoader(parent.main.env).load(file);
      } catch (ConfigException e) {
        int n = e.errors().size();
        out.println(file + ": " + n + " error" + (n == 1 ? "" : "s"));
        e.errors().forEach(line -> out.println("  " + line));
        out.flush();
        return CliException.FAILED;
      }
      out.println("ok: " + file);
      summary(out, cfg);
      out.flush();
      return 0;
    }

    private static void summary(PrintWriter out, WharfConfig cfg) {
      out.println("  listen:  " + cfg.server().host() + ":" + cfg.server().port());
      String storage =
          cfg.storage() instanceof StorageConfig.Sqlite s
              ? "sqlite " + s.path()
              : cfg.storage().describe();
      out.println("  storage: " + storage);
      out.println(
          "  auth:    "
              + (cfg.auth().adminToken() == null
                  ? "no admin token (management from loopback only)"
                  : "admin token set")
              + (cfg.auth().requireTokens() ? ", tokens required on every queue" : ""));
      StringBuilder queues = new StringBuilder();
      int named = 0;
      for (QueueConfig q : cfg.queues().values()) {
        if (named == LISTED_QUEUES) {
          // A file of hundreds of queues would make this one line of tens of kilobytes.
          queues.append(", and ").append(cfg.queues().size() - named).append(" more");
          break;
        }
        queues.append(queues.isEmpty() ? "" : ", ").append(q.name());
        if (q.settings().deadLetterQueue() != null) {
          queues.append(" (dlq ").append(q.settings().deadLetterQueue()).append(')');
        }
        named++;
      }
      out.println("  queues:  " + cfg.queues().size() + (queues.isEmpty() ? "" : ": " + queues));
      out.println("  sources: " + cfg.sources().size());
      ConfigWarnings.of(cfg).forEach(w -> out.println("  warning: " + w));
    }
  }
}
