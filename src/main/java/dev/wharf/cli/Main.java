package dev.wharf.cli;

import dev.wharf.app.ServerWarmup;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code wharf} command: the server ({@code serve}) and a client of a running one. */
@Command(
    name = "wharf",
    mixinStandardHelpOptions = true,
    version = "wharf 0.1.0",
    description = "A durable inbox for webhooks and jobs.",
    subcommands = {
      ServeCommand.class,
      ConfigCommand.class,
      QueuesCommand.class,
      PublishCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {
  static final int USAGE = 64;

  final Map<String, String> env;
  final InputStream stdin;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  Main(Map<String, String> env, InputStream stdin) {
    this.env = env;
    this.stdin = stdin;
  }

  @Override
  public void run() {
    throw missingCommand(spec);
  }

  /**
   * A command line that stops at a command with subcommands ({@code wharf}, {@code wharf queues})
   * names none to run: a missing argument, exit 64 like any other, with the commands to pick from.
   */
  static CommandLine.ParameterException missingCommand(CommandLine.Model.CommandSpec spec) {
    return new CommandLine.ParameterException(
        spec.commandLine(),
        "a command is required: " + String.join(", ", spec.subcommands().keySet()));
  }

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("serve")) {
      // Before anything else: a stop asked for while the command line and the config are read
      // is a clean one (exit 0), not the JVM's exit 143.
      StopSignals.install();
      // Loading what the server needs starts now, while the command line is read.
      ServerWarmup.begin();
    }
    System.exit(run(args, System.getenv(), System.in, null, null));
  }

  /** Runs one command line; null writers mean the process's stdout and stderr. */
  static int run(
      String[] args, Map<String, String> env, InputStream in, PrintWriter out, PrintWriter err) {
    Optional<PlainServe> plain = PlainServe.of(args);
    if (plain.isPresent()) {
      return plain.get().run(
          env,
          out != null ? out : new PrintWriter(System.out, true),
          err != null ? err : new PrintWriter(System.err, true));
    }
    CommandLine cmd = new CommandLine(new Main(env, in));
    if (out != null) {
      cmd.setOut(out);
    }
    if (err != null) {
      cmd.setErr(err);
    }
    // A malformed command line exits 64 (EX_USAGE) so scripts can tell it from "server
    // unreachable" (2); a value the option cannot take exits 1 like every other bad value.
    cmd.setParameterExceptionHandler(
        (e, a) -> {
          CommandLine line = e.getCommandLine();
          String message = e.getMessage();
          if (e instanceof CommandLine.UnmatchedArgumentException u
              && !line.getSubcommands().isEmpty()
              && !u.getUnmatched().isEmpty()
              && !u.getUnmatched().get(0).startsWith("-")) {
            message = "unknown command '" + u.getUnmatched().get(0) + "': "
                + line.getCommandSpec().qualifiedName() + " has "
                + String.join(", ", line.getSubcommands().keySet());
          }
          line.getErr().println("wharf: " + message);
          line.getErr().println("Try '" + line.getCommandSpec().qualifiedName() + " --help'.");
          line.getErr().flush();
          return isBadValue(e) ? CliException.FAILED : USAGE;
        });
    cmd.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          if (e instanceof CliException ce) {
            return ce.report(line.getErr());
          }
          throw e;
        });
    return cmd.execute(args);
  }

  /**
   * A value picocli could not convert ({@code --limit abc}, {@code --header novalue}): it comes as
   * a plain ParameterException naming the option and the value. Unknown options, missing
   * arguments and conflicting options are its subclasses.
   */
  private static boolean isBadValue(CommandLine.ParameterException e) {
    return e.getClass() == CommandLine.ParameterException.class
        && e.getArgSpec() != null
        && e.getValue() != null;
  }
}
