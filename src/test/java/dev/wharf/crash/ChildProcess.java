package dev.wharf.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A {@link ChildServer} JVM started by the test, on the test's own JDK and class path. */
final class ChildProcess implements AutoCloseable {
  private static final long START_TIMEOUT_SECONDS = 60;
  private final Process process;
  private final Path log;
  private final int port;

  private ChildProcess(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /**
   * Starts a server on {@code storage} (a SQLite file, or {@code postgres:<jdbc url>}) and waits
   * until it prints its port.
   */
  static ChildProcess start(String storage, Path log) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                ChildServer.class.getName(), storage))
            .redirectError(log.toFile())
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<Integer> port = new CompletableFuture<>();
    Thread.ofPlatform().daemon().name("child-stdout").start(() -> {
      try {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          if (line.startsWith("PORT ")) {
            port.complete(Integer.parseInt(line.substring(5).trim()));
          }
        }
        port.completeExceptionally(new IOException("child server exited before printing its port"));
      } catch (IOException | RuntimeException e) {
        port.completeExceptionally(e);
      }
    });
    try {
      return new ChildProcess(p, log, port.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS));
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      p.destroyForcibly().waitFor();
      throw new IOException("child server did not start: " + e + "\n" + tail(log), e);
    }
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL, and wait until the process is gone (its file locks and sockets released). */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("child server " + process.pid() + " survived SIGKILL");
    }
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }

  /** The end of the child's log, for failure messages. */
  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  Path log() {
    return log;
  }
}
