package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's curl walk-through, run as written (with bash and curl) against a real server, and
 * every answer it shows compared with the one printed: a reader copies those commands first, and
 * checks what they print against the page.
 */
class ReadmeWalkthroughTest {
  private static final String CUT = "…";
  /** A string cut short ("01M…") stands for any string; anywhere else the mark is any text. */
  private static final Pattern CUT_MARK =
      Pattern.compile("\"[^\"" + CUT + "]*" + CUT + "\"|" + CUT);

  @TempDir Path dir;

  @Test
  void everyAnswerTheReadmeShowsIsWhatItsCommandsPrintAndTheyCanRunAgain() throws Exception {
    assumeTrue(onPath("curl"), "the walk-through needs curl");
    List<String> block = walkThrough(Files.readAllLines(Path.of("README.md")));
    List<String> shown = new ArrayList<>();
    for (String line : block) {
      if (line.startsWith("# {")) {
        shown.add(line.substring(2));
      }
    }
    assertThat(shown).hasSizeGreaterThan(10);
    try (TestServer server = new TestServer(dir)) {
      Path script = dir.resolve("walk.sh");
      Files.writeString(
          script,
          String.join("\n", block).replace("localhost:8080", "127.0.0.1:" + server.http.port()));
      // Twice: the README says it leaves the queue as it found it.
      for (int run = 1; run <= 2; run++) {
        List<String> printed = run(script);
        assertThat(printed).as("run %d printed", run).hasSameSizeAs(shown);
        for (int i = 0; i < shown.size(); i++) {
          assertThat(printed.get(i))
              .as("run %d, answer %d, shown as %s", run, i + 1, shown.get(i))
              .matches(pattern(shown.get(i)));
        }
      }
    }
  }

  @Test
  void aStringCutShortStandsForAnyStringAndAMarkElsewhereForAnyText() {
    Pattern p = pattern("{\"id\":\"01M…\",…,\"n\":1}");
    assertThat("{\"id\":\"01X9\",\"a\":{\"b\":2},\"n\":1}").matches(p);
    assertThat("{\"id\":\"01X9\",\"a\":2,\"n\":12}").doesNotMatch(p);
    assertThat("{\"id\":\"01X9\",\"n\":1}").doesNotMatch(p);
  }

  /** The lines of the first shell block under the "A walk through" heading. */
  private static List<String> walkThrough(List<String> readme) {
    int heading = readme.indexOf("## A walk through");
    assertThat(heading).as("the README's walk-through heading").isNotNegative();
    int open = readme.subList(heading, readme.size()).indexOf("```sh") + heading;
    int close = readme.subList(open + 1, readme.size()).indexOf("```") + open + 1;
    assertThat(close).isGreaterThan(open + 1);
    return readme.subList(open + 1, close);
  }

  static Pattern pattern(String shown) {
    StringBuilder re = new StringBuilder();
    Matcher m = CUT_MARK.matcher(shown);
    int last = 0;
    while (m.find()) {
      re.append(Pattern.quote(shown.substring(last, m.start())));
      re.append(m.group().equals(CUT) ? ".*" : "\"[^\"]*\"");
      last = m.end();
    }
    return Pattern.compile(re.append(Pattern.quote(shown.substring(last))).toString());
  }

  private List<String> run(Path script) throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder("bash", script.toString())
            .redirectError(dir.resolve("walk.err").toFile());
    // A proxy from the environment must not stand between curl and the loopback server.
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.toLowerCase(java.util.Locale.ROOT).endsWith("_proxy"));
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue())
        .as("the walk-through's exit, stderr: %s", Files.readString(dir.resolve("walk.err")))
        .isZero();
    return new String(out, StandardCharsets.UTF_8).lines().toList();
  }

  private static boolean onPath(String command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("bash", "-c", "command -v " + command).start();
    p.getInputStream().readAllBytes();
    return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
  }
}
