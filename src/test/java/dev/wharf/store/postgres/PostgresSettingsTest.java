package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PostgresSettingsTest {
  @Test
  void jdbcUrlsArePassedThrough() {
    PostgresSettings s =
        PostgresSettings.of("jdbc:postgresql://db:5432/wharf?sslmode=require", "u", "p", 8);
    assertThat(s.url()).isEqualTo("jdbc:postgresql://db:5432/wharf?sslmode=require");
    assertThat(s.user()).isEqualTo("u");
    assertThat(s.password()).isEqualTo("p");
  }

  @Test
  void libpqUrlsBecomeJdbcUrlsWithTheirCredentials() {
    PostgresSettings s =
        PostgresSettings.of("postgres://wharf:s%40cret@db.internal:6432/queue?sslmode=verify-full",
            null, null, 4);
    assertThat(s.url()).isEqualTo("jdbc:postgresql://db.internal:6432/queue?sslmode=verify-full");
    assertThat(s.user()).isEqualTo("wharf");
    assertThat(s.password()).isEqualTo("s@cret");
    // Credentials given in the config win over the URL's.
    PostgresSettings given = PostgresSettings.of("postgresql://a:b@h/d", "c", "d", 4);
    assertThat(given.url()).isEqualTo("jdbc:postgresql://h/d");
    assertThat(given.user()).isEqualTo("c");
    assertThat(given.password()).isEqualTo("d");
  }

  @Test
  void theSecretStaysOutOfToString() {
    assertThat(new PostgresSettings("jdbc:postgresql://h/d", "u", "hunter2", 2).toString())
        .doesNotContain("hunter2");
  }

  @Test
  void passwordsInUrlsAreMaskedWhereverTheUrlIsShown() {
    assertThat(PostgresSettings.redact("postgres://wharf:s3cret@db:5432/q?sslmode=require"))
        .isEqualTo("postgres://wharf:***@db:5432/q?sslmode=require");
    assertThat(PostgresSettings.redact(
            "jdbc:postgresql://db/q?user=w&password=s3cret&sslpassword=k3y&ssl=true"))
        .isEqualTo("jdbc:postgresql://db/q?user=w&password=***&sslpassword=***&ssl=true");
    assertThat(PostgresSettings.redact("postgres://wharf@db/q")).isEqualTo("postgres://wharf@db/q");
    assertThat(PostgresSettings.redact("jdbc:postgresql://db/q")).isEqualTo("jdbc:postgresql://db/q");
    assertThat(new PostgresSettings("jdbc:postgresql://h/d?password=s3cret", null, null, 2)
        .toString()).doesNotContain("s3cret");
  }

  @Test
  void badSettingsAreRefused() {
    assertThatThrownBy(() -> PostgresSettings.of("mysql://h/d", null, null, 4))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbc:postgresql:");
    assertThatThrownBy(() -> new PostgresSettings("jdbc:postgresql://h/d", null, null, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pool");
  }
}
