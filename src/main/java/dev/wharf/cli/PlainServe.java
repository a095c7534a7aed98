package dev.wharf.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The plain forms of {@code wharf serve}: no option, or only the config file ({@code -c FILE},
 * {@code --config FILE}, {@code --config=FILE}). They run without building picocli's model of
 * every command, which costs about a third of a second of every start (picocli's classes are too
 * old a class-file version for the class-data archive), and a start is what a restart after a
 * crash waits for. Any other form, help included, goes through picocli as usual.
 */
record PlainServe(Path config) {

  /** The plain form {@code args} are, if they are one. */
  static Optional<PlainServe> of(String[] args) {
    if (args.length == 0 || !args[0].equals("serve")) {
      return Optional.empty();
    }
    if (args.length == 1) {
      return Optional.of(new PlainServe(null));
    }
    if (args.length == 2 && args[1].startsWith("--config=")) {
      return file(args[1].substring("--config=".length()));
    }
    if (args.length == 3 && (args[1].equals("-c") || args[1].equals("--config"))) {
      return file(args[2]);
    }
    return Optional.empty();
  }

  /** A value picocli would read as an option, or none at all, is left to picocli's errors. */
  private static Optional<PlainServe> file(String value) {
    return value.isEmpty() || value.startsWith("-")
        ? Optional.empty()
        : Optional.of(new PlainServe(Path.of(value)));
  }

  /** Serves until stopped; answers failures as picocli's handlers in {@link Main} do. */
  int run(Map<String, String> env, PrintWriter out, PrintWriter err) {
    try {
      ServeCommand.serve(config, env, out, err);
      return 0;
    } catch (CliException e) {
      return e.report(err);
    } catch (RuntimeException e) {
      e.printStackTrace(err);
      err.flush();
      return 1;
    }
  }
}
