package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Which command lines skip picocli: only those whose meaning picocli would give them too. */
class PlainServeTest {

  @Test
  void theConfigFileFormsAreServedDirectly() {
    assertThat(PlainServe.of(new String[] {"serve"})).contains(new PlainServe(null));
    assertThat(PlainServe.of(new String[] {"serve", "-c", "w.yaml"}))
        .contains(new PlainServe(Path.of("w.yaml")));
    assertThat(PlainServe.of(new String[] {"serve", "--config", "/etc/w.yaml"}))
        .contains(new PlainServe(Path.of("/etc/w.yaml")));
    assertThat(PlainServe.of(new String[] {"serve", "--config=w.yaml"}))
        .contains(new PlainServe(Path.of("w.yaml")));
  }

  @Test
  void everythingElseGoesThroughPicocli() {
    String[][] others = {
      {},
      {"queues", "list"},
      {"serve", "--help"},
      {"serve", "-h"},
      {"serve", "-c"},
      {"serve", "-c", "--help"},
      {"serve", "--config="},
      {"serve", "-cw.yaml"},
      {"serve", "-c", "a.yaml", "-c", "b.yaml"},
      {"serve", "extra"},
      {"serve", "-x", "w.yaml"},
      {"--version", "serve"},
    };
    for (String[] args : others) {
      assertThat(PlainServe.of(args)).as(String.join(" ", args)).isEmpty();
    }
  }
}
