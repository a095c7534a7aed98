package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * The run bin/wharf records the start-up cache from: it must keep going through every step against
 * a real server, or the cache would quietly stop covering what a start loads.
 */
class StartupTrainingTest {

  @Test
  void everyStepSucceedsAgainstARealServer() {
    StringWriter log = new StringWriter();
    int code = StartupTraining.run(new PrintWriter(log, true));
    assertThat(code).as(log.toString()).isZero();
    assertThat(log.toString())
        .contains("published 11, received and acked them")
        .contains("nacked one until it was dead, and redrove it")
        .contains("listed the queues, purged one, read the metrics")
        .endsWith("training: done\n");
  }
}
