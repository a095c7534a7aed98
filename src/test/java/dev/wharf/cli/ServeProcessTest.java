package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code wharf serve} as a user runs it, in a child JVM: what it prints from start to stop is its
 * start line and its stop line, nothing from the libraries it loads while starting.
 */
class ServeProcessTest {
  private static final Pattern LISTENING =
      Pattern.compile("^wharf listening on http://[^:]+:(\\d+),");
  @TempDir Path dir;
  private Process child;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (child != null) {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void printsItsStartLineWarningsAndStopLineAndExitsZero() throws Exception {
    Path config = dir.resolve("wharf.yaml");
    Files.writeString(config, """
        server: {host: 127.0.0.1, port: 0}
        storage: {kind: sqlite, path: "%s"}
        auth: {require_tokens: true}
        """.formatted(dir.resolve("wharf.db").toString().replace("\\", "/")));
    // To a file, not a pipe: the JDK drains a pipe when the child exits, racing a reader for the
    // last lines, and the last line is what this test is about.
    Path output = dir.resolve("output.txt");
    child = serve(config, output);
    String port = awaitPort(output);
    HttpResponse<String> ready = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).isEqualTo(200);

    // SIGTERM: the server closes, then the store, and the command returns. Sent twice at once, as
    // `timeout` does (to the process, then its group): still one ask, not "stop at once".
    String pid = String.valueOf(child.pid());
    assertThat(new ProcessBuilder("kill", "-TERM", pid, pid).start().waitFor()).isZero();
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).as("a stop asked by SIGTERM is not a failure").isZero();
    List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).matches(LISTENING.pattern() + ".*");
    // What config check warns of is said at the start too.
    assertThat(lines.get(1)).startsWith("wharf: warning: require_tokens without an admin token");
    assertThat(lines.get(2)).isEqualTo("wharf stopped");
  }

  /**
   * A SIGTERM while the config is still being read (the first moments of the process) is a stop
   * asked for like any other: exit 0, and the server is not started at all. The config is a named
   * pipe, so the child is held in the read for as long as the test needs.
   */
  @Test
  void aStopAskedWhileTheConfigIsReadExitsZeroWithoutStarting() throws Exception {
    Path config = dir.resolve("wharf.yaml");
    assertThat(new ProcessBuilder("mkfifo", config.toString()).start().waitFor()).isZero();
    Path db = dir.resolve("wharf.db");
    Path output = dir.resolve("output.txt");
    child = serve(config, output);
    // Opening the pipe to write returns once the child has opened it to read: it is reading its
    // config. On a daemon thread, so that a child that never gets there fails the test, bounded.
    CompletableFuture<OutputStream> writer = new CompletableFuture<>();
    Thread.ofPlatform().daemon().start(() -> {
      try {
        writer.complete(Files.newOutputStream(config));
      } catch (IOException e) {
        writer.completeExceptionally(e);
      }
    });
    try (OutputStream w = writer.get(60, TimeUnit.SECONDS)) {
      String pid = String.valueOf(child.pid());
      assertThat(new ProcessBuilder("kill", "-TERM", pid).start().waitFor()).isZero();
      // Left to the JVM, the signal ends the process here, with 143.
      assertThat(child.waitFor(1, TimeUnit.SECONDS))
          .as("exited on the signal while reading its config: " + Files.readString(output))
          .isFalse();
      w.write("""
          server: {host: 127.0.0.1, port: 0}
          storage: {kind: sqlite, path: "%s"}
          """.formatted(db.toString().replace("\\", "/")).getBytes(StandardCharsets.UTF_8));
    }
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).as(Files.readString(output)).isZero();
    assertThat(Files.readAllLines(output, StandardCharsets.UTF_8)).containsExactly("wharf stopped");
    assertThat(db).as("nothing was opened").doesNotExist();
  }

  /**
   * Netty's {@code io.netty.transport.noNative} makes a machine without io_uring or epoll: the
   * default then serves on NIO and says so, and a transport named in the config stops the start
   * with the reason, as a one-line error and exit status 1.
   */
  @Test
  void withoutNativeTransportsAutoServesOnNioAndANamedOneStopsTheStart() throws Exception {
    Path output = dir.resolve("auto.txt");
    child = startWithoutNatives("auto", output);
    String port = awaitPort(output);
    HttpResponse<String> ready = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(Files.readAllLines(output, StandardCharsets.UTF_8).get(0))
        .contains(", transport nio, ");
    child.destroy();
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();

    for (String named : List.of("io_uring", "epoll")) {
      Path refused = dir.resolve(named + ".txt");
      child = startWithoutNatives(named, refused);
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).isEqualTo(1);
      String said = Files.readString(refused, StandardCharsets.UTF_8);
      assertThat(said)
          .startsWith("wharf: cannot listen on 127.0.0.1:0: " + named + " is not available here (")
          .contains("set server.transport to auto to use what is")
          .doesNotContain("Exception");
    }
  }

  private Process startWithoutNatives(String transport, Path output) throws Exception {
    Path config = dir.resolve("wharf-" + transport + ".yaml");
    Files.writeString(config, """
        server: {host: 127.0.0.1, port: 0, transport: %s}
        storage: {kind: sqlite, path: "%s"}
        """.formatted(transport, dir.resolve("wharf.db").toString().replace("\\", "/")));
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC",
        "-Dio.netty.transport.noNative=true", "-cp", cp,
        "dev.wharf.cli.Main", "serve", "-c", config.toString())
        .redirectErrorStream(true)
        .redirectOutput(output.toFile())
        .start();
  }

  /** Reads the child's output until it says where it listens (at most 60 s). */
  private String awaitPort(Path output) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
        Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          return m.group(1);
        }
      }
      if (child.waitFor(20, TimeUnit.MILLISECONDS)) {
        break;
      }
    }
    throw new AssertionError("no start line; output: " + Files.readString(output));
  }

  /** {@code wharf serve -c config} in a child JVM, its output (both streams) to {@code output}. */
  private static Process serve(Path config, Path output) throws IOException {
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC", "-cp", cp,
        "dev.wharf.cli.Main", "serve", "-c", config.toString())
        .redirectErrorStream(true)
        .redirectOutput(output.toFile())
        .start();
  }
}
