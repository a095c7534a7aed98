package dev.wharf.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wharf.app.WharfApp;
import dev.wharf.config.ConfigLoader;
import dev.wharf.loopback.MiniHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.assertj.core.api.Assertions.assertThat;

/** The latency scenario's schedule, and its multiplexed publishers against a real server. */
class PacedPublisherTest {
  private static final long MS = 1_000_000L;

  @Test
  void slotsAreTakenInOrderAtTheRate() {
    PacedPublisher.Pace pace = new PacedPublisher.Pace(1_000 * MS, 1000); // one a millisecond
    assertThat(pace.takeIfDue(999 * MS)).isEqualTo(-1);
    assertThat(pace.takeIfDue(1_000 * MS)).isEqualTo(1_000 * MS);
    assertThat(pace.takeIfDue(1_000 * MS)).isEqualTo(-1);
    // Two slots due by 1.002 s, whoever asks.
    assertThat(pace.takeIfDue(1_002 * MS)).isEqualTo(1_001 * MS);
    assertThat(pace.takeIfDue(1_002 * MS)).isEqualTo(1_002 * MS);
    assertThat(pace.takeIfDue(1_002 * MS)).isEqualTo(-1);
    // A blocking publisher takes the next slot ahead and sleeps until it is due.
    assertThat(pace.take(1_002 * MS)).isEqualTo(1_003 * MS);
  }

  @Test
  void slotsMissedByFarAreSkippedNotBurstThrough() {
    PacedPublisher.Pace pace = new PacedPublisher.Pace(0, 1000);
    // 500 ms late: skipped up to now, and the slot after that is the next one sent.
    assertThat(pace.take(500 * MS)).isEqualTo(-1);
    assertThat(pace.takeIfDue(500 * MS)).isEqualTo(500 * MS);
    assertThat(pace.takeIfDue(500 * MS)).isEqualTo(-1);
    assertThat(pace.takeIfDue(501 * MS)).isEqualTo(501 * MS);
    // A multiplexed publisher that finds itself far behind skips too, and sends one message
    // for the slot due now, not two.
    assertThat(pace.takeIfDue(900 * MS)).isEqualTo(900 * MS);
    assertThat(pace.takeIfDue(900 * MS)).isEqualTo(-1);
  }

  @Test
  void atARateUnderTenASecondASkipStillMovesOn() {
    PacedPublisher.Pace pace = new PacedPublisher.Pace(0, 2); // one every 500 ms
    assertThat(pace.takeIfDue(0)).isZero();
    // 300 ms behind the slot due at 500 ms: past the bound, but not a whole slot.
    assertThat(pace.takeIfDue(800 * MS)).isEqualTo(-1);
    assertThat(pace.takeIfDue(1_000 * MS)).isEqualTo(1_000 * MS);
  }

  @Test
  void messagesSentWellAfterTheirSlotAreCounted() {
    PacedPublisher.Pace pace = new PacedPublisher.Pace(0, 1000);
    Phase phase = new Phase(0, 60);
    long now = System.nanoTime();
    pace.sent(now, now + MS, phase);
    assertThat(pace.late()).isZero();
    pace.sent(now, now + PacedPublisher.Pace.LATE_NS + 1, phase);
    assertThat(pace.late()).isEqualTo(1);
    // Before the measured window: not counted.
    pace.sent(now - 20_000 * MS, now - 10_000 * MS, phase);
    assertThat(pace.late()).isEqualTo(1);
  }

  @Test
  void everyPacedPublishLandsAndNoneBeyondTheSchedule(@TempDir Path dir) throws Exception {
    String yaml = "server:\n  port: 0\nstorage:\n  path: %s\n"
        .formatted(dir.resolve("wharf.db").toString().replace("\\", "/"));
    WharfApp app = WharfApp.start(new ConfigLoader(Map.of()).parse(yaml, "test"));
    try (MiniHttp admin = new MiniHttp(app.port(), null)) {
      String queue = "paced";
      assertThat(admin.send("PUT", "/v1/queues/" + queue, "{}".getBytes(StandardCharsets.UTF_8))
          .ok()).isTrue();
      int clients = 8;
      double rate = 400;
      Phase phase = new Phase(0, 0.5);
      // The bound below counts slots from the schedule's own start, not the run's.
      long started = System.nanoTime();
      PacedPublisher.Pace pace = new PacedPublisher.Pace(started, rate);
      Tally tally = new Tally();
      AtomicLong measured = new AtomicLong();
      List<MuxClients.Conversation> pubs = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        pubs.add(new PacedPublisher(phase, pace, "/v1/queues/" + queue + "/messages", tally,
            measured));
      }
      MuxClients.run(app.port(), null, phase, pubs);
      double seconds = (System.nanoTime() - started) / 1e9;

      assertThat(tally.errors).as("errors %s", tally.errorKinds).isZero();
      assertThat(tally.requests).isPositive().isEqualTo(measured.get());
      // The schedule bounds what was sent, however fast the server answered.
      assertThat((double) tally.requests).isLessThanOrEqualTo(rate * seconds + 1);
      long ready = new ObjectMapper()
          .readTree(admin.send("GET", "/v1/queues/" + queue, null).body())
          .path("stats").path("ready").asLong();
      assertThat(ready).isBetween(tally.requests, tally.requests + clients);
    } finally {
      app.close();
    }
  }
}
