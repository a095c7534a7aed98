package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConsumeScenarioTest {
  @Test
  void anAckOfSomeLeasesOnlyCountsThoseItAcked() {
    byte[] partial = ("{\"code\":\"lease_conflict\",\"detail\":\"x\",\"results\":["
        + "{\"lease_id\":\"a\",\"outcome\":\"acked\"},"
        + "{\"lease_id\":\"b\",\"outcome\":\"lease_not_found\"},"
        + "{\"lease_id\":\"c\",\"outcome\":\"acked\"}]}")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(ConsumeScenario.ackedBy(200, null, 3)).isEqualTo(3);
    assertThat(ConsumeScenario.ackedBy(409, partial, 3)).isEqualTo(2);
    assertThat(ConsumeScenario.ackedBy(503, partial, 3)).isZero();
  }
}
