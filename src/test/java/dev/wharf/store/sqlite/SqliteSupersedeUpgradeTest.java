package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ContentType;
import dev.wharf.store.DeadLetterPolicy;
import dev.wharf.store.LeaseExpiryRequest;
import dev.wharf.store.MessageIds;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.PublishResult;
import dev.wharf.store.QueueCounts;
import dev.wharf.store.ReapResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A database from before leased messages could be superseded by key takes that on at start. */
class SqliteSupersedeUpgradeTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  private SqliteStore store;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  @Test
  void aMessageLeasedBeforeTheUpgradeIsSupersededByTheNextPublishOfItsKey() throws Exception {
    Path file = dir.resolve("v2.db");
    String leased = MessageIds.sequenced(NOW.toEpochMilli(), 1);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      SqliteSchema.migrate(c, 2);
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO queues(name, settings) VALUES ('q', '{}')");
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO messages(seq, id, queue, state, content_type, payload, attempt,"
                  + " published_at, visible_at, lease_id, lease_until, msg_key)"
                  + " VALUES (1, ?, 'q', 1, ?, ?, 1, ?, ?, '1.x', ?, 'k')")) {
        ps.setString(1, leased);
        ps.setInt(2, ContentType.TEXT.ordinal());
        ps.setBytes(3, "v1".getBytes(StandardCharsets.UTF_8));
        ps.setLong(4, NOW.toEpochMilli());
        ps.setLong(5, NOW.toEpochMilli());
        ps.setLong(6, NOW.plusSeconds(30).toEpochMilli());
        ps.executeUpdate();
      }
    }

    store = new SqliteStore(file);
    store.start();
    NewMessage v2 =
        new NewMessage(ContentType.TEXT, "v2".getBytes(StandardCharsets.UTF_8), Map.of(), null,
            NOW, null, null, "k");
    PublishResult r = store.messagesPublish(new PublishBatch("q", List.of(v2), NOW, NOW)).get(0);
    assertThat(r.replaced()).isFalse();
    assertThat(r.id()).isNotEqualTo(leased);

    Instant later = NOW.plus(Duration.ofSeconds(31));
    ReapResult reaped =
        store.leasesExpire(
            new LeaseExpiryRequest(later, 100, q -> new DeadLetterPolicy(0, null)));
    assertThat(reaped.superseded()).isEqualTo(Map.of("q", 1));
    assertThat(reaped.madeVisible()).isEmpty();
    assertThat(store.messagesGet("q", leased)).isEmpty();
    QueueCounts counts = store.queueCounts("q", later);
    assertThat(List.of(counts.ready(), counts.leased())).containsExactly(1L, 0L);
  }
}
