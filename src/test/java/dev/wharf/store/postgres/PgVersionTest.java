package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PgVersionTest {
  @Test
  void aServerOlderThanTenIsRefusedNamingTheOldestThatWorks() {
    assertThat(PgVersion.refusal(9, "9.6.24"))
        .isEqualTo("PostgreSQL 9.6.24 is too old: Wharf needs PostgreSQL 10 or later");
    assertThat(PgVersion.refusal(10, "10.23")).isNull();
    assertThat(PgVersion.refusal(17, "17.5")).isNull();
  }
}
