package dev.wharf.cli;

/** A command that failed in a way the user should read as one line, with the exit code to use. */
final class CliException extends RuntimeException {
  static final int FAILED = 1;
  static final int UNREACHABLE = 2;

  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }

  /** Says what failed on {@code err}, as every command does, and returns the exit code. */
  int report(java.io.PrintWriter err) {
    err.println("wharf: " + getMessage());
    err.flush();
    return exitCode;
  }
}
