package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class PgStallTest {
  @Test
  void aReadOrLoginNotAnsweredInTimeIsAStallAndNothingElseIs() {
    // As the driver reports them: a read's timeout under an I/O error, a login's by its message.
    assertThat(PgStall.timedOut(new SQLException("An I/O error occurred while sending to the"
        + " backend.", "08006", new SocketTimeoutException("Read timed out")))).isTrue();
    assertThat(PgStall.timedOut(new SQLException("Connection attempt timed out.", "08001")))
        .isTrue();
    assertThat(PgStall.timedOut(new SQLException("An I/O error occurred while sending to the"
        + " backend.", "08006", new SocketException("Connection reset")))).isFalse();
    assertThat(PgStall.timedOut(new SQLException("Connection refused.", "08001"))).isFalse();
    assertThat(PgStall.timedOut(new SQLException("canceling statement due to statement"
        + " timeout", "57014"))).isFalse();
  }

  @Test
  void theDriverTakesWholeSecondsRoundedUp() {
    Properties p = new Properties();
    PgStall.addTo(p, new PostgresSettings("jdbc:postgresql://h/d", null, null, 2,
        Duration.ofMillis(1500)));
    assertThat(p.getProperty("loginTimeout")).isEqualTo("2");
    assertThat(p.getProperty("connectTimeout")).isEqualTo("2");
    assertThat(p.getProperty("socketTimeout")).isEqualTo("2");
    PgStall.addTo(p, new PostgresSettings("jdbc:postgresql://h/d", null, null, 2,
        Duration.ofMillis(100)));
    assertThat(p.getProperty("socketTimeout")).isEqualTo("1");
  }
}
