package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.app.WharfApp;
import dev.wharf.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The harness against a real server: a short publish run reports the server's write stages. */
class BenchAgainstServerTest {
  @TempDir Path dir;

  @Test
  void aPublishRunReportsTheServersWriteStages() throws Exception {
    var cfg =
        new ConfigLoader(Map.of())
            .parse(
                "server: {host: 127.0.0.1, port: 0}\nstorage: {path: '"
                    + dir.resolve("b.db")
                    + "'}\n",
                "test");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exit;
    try (WharfApp app = WharfApp.start(cfg)) {
      PrintStream was = System.out;
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      try {
        exit =
            new CommandLine(new Bench())
                .execute(
                    "publish",
                    "--port",
                    Integer.toString(app.port()),
                    "--seconds",
                    "0.5",
                    "--warmup",
                    "0",
                    "--clients",
                    "2",
                    "--no-probe",
                    "--json");
      } finally {
        System.setOut(was);
      }
    }
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(text).isZero();
    assertThat(text).containsPattern("server writes \\(means\\): queued \\d+\\.\\d{3} ms, batch");
    JsonNode json =
        new ObjectMapper()
            .readTree(text.lines().filter(l -> l.startsWith("{")).findFirst().orElseThrow());
    // Every publish was a durable write: batches ran, and each waited for an fsync.
    assertThat(json.path("server_batches_per_s").asLong()).isPositive();
    assertThat(json.path("server_fsync_mean_ms").asDouble()).isPositive();
    assertThat(json.path("server_commit_to_durable_mean_ms").asDouble()).isPositive();
    // The server is this JVM: its compiler threads were watched over the measured window.
    assertThat(json.has("server_jit_cores")).as(text).isTrue();
    assertThat(json.path("server_jit_cores").asDouble()).isBetween(0.0, 64.0);
    assertThat(text).contains("jit: the server's compiler threads used");
  }

  @Test
  void cpuTimesAreReadPastACommandNameWithSpacesAndParentheses() {
    String stat = "4242 (C2 Compiler) x) S 1 2 3 4 5 6 7 8 9 10 250 17 0 0 20 0";
    assertThat(CpuMeter.ticksOf(stat)).isEqualTo(267);
    assertThat(JitMeter.compilerTicks(ProcessHandle.current().pid())).isNotNegative();
  }
}
