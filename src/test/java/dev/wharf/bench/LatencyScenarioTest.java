package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyScenarioTest {
  @Test
  void saysNothingWhenThePublishersKeptTheRate() {
    assertThat(LatencyScenario.shortfall(10_000, 10_000)).isNull();
    assertThat(LatencyScenario.shortfall(10_000, 9_850)).isNull();
  }

  @Test
  void warnsWhenThePublishersFellBehind() {
    assertThat(LatencyScenario.shortfall(14_798, 14_205))
        .contains("14205 of the 14798 msg/s asked (96%)")
        .contains("did not keep up")
        .contains("leave out that wait");
  }
}
