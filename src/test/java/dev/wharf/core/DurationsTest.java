package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
  @Test
  void readsEachUnitAndABareNumberAsSeconds() {
    assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(Durations.parse("3d")).isEqualTo(Duration.ofDays(3));
    assertThat(Durations.parse(" 12 ")).isEqualTo(Duration.ofSeconds(12));
  }

  @Test
  void leadingZerosCountForNothing() {
    assertThat(Durations.parse("007s")).isEqualTo(Duration.ofSeconds(7));
    assertThat(Durations.parse("0")).isEqualTo(Duration.ZERO);
    assertThat(Durations.parse("000ms")).isEqualTo(Duration.ZERO);
    // Past eighteen characters only by its zeros: still one second, not "beyond any range".
    assertThat(Durations.parse("0000000000000000000000001s")).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aDurationPastEveryRangeIsReadAsSuch() {
    Duration beyond = Durations.parse("1234567890123456789012s");
    assertThat(beyond).isGreaterThan(Duration.ofDays(1_000_000_000L));
    assertThat(Durations.format(beyond)).isEqualTo("more than 1000000000d");
  }

  @Test
  void refusesWhatIsNotADuration() {
    assertThatThrownBy(() -> Durations.parse("-5s")).isInstanceOf(Durations.NegativeException.class);
    assertThatThrownBy(() -> Durations.parse("5 s")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Durations.parse("s")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Durations.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
