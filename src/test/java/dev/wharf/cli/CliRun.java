package dev.wharf.cli;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Runs the wharf command in-process and captures what it prints. */
record CliRun(int exitCode, String out, String err) {

  static CliRun run(Map<String, String> env, String stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Main.run(
            args,
            env,
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
            new PrintWriter(out, true),
            new PrintWriter(err, true));
    return new CliRun(code, out.toString(), err.toString());
  }

  static CliRun run(String... args) {
    return run(Map.of(), "", args);
  }
}
