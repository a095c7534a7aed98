package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.ContentType;
import dev.wharf.store.Message;
import dev.wharf.store.MessageIds;
import dev.wharf.store.NewMessage;
import dev.wharf.store.PublishBatch;
import dev.wharf.store.QueueRecord;
import dev.wharf.store.RedriveRequest;
import dev.wharf.store.Redriven;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Message ids name their row, so no index on the id text is kept; a database from before that
 * keeps its ids findable, through an index of just those rows that goes once they are gone.
 */
class SqliteMessageIdsTest {
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
  void anIdFindsItsMessageAndNoOtherWithTheSameSeq() throws Exception {
    Path file = dir.resolve("new.db");
    open(file);
    String id = publish("one");
    long seq = MessageIds.seqOf(id);
    assertThat(seq).isPositive();
    assertThat(store.messagesGet("q", id)).get().extracting(Message::seq).isEqualTo(seq);
    assertThat(store.messagesGet("other", id)).isEmpty();

    // The same seq with another time: an id of a row since gone, or one made up.
    String stale = MessageIds.sequenced(NOW.toEpochMilli() - 1, seq);
    assertThat(store.messagesGet("q", stale)).isEmpty();
    assertThat(store.messagesDelete("q", stale)).isFalse();
    assertThat(store.messagesGet("q", "not-an-id")).isEmpty();
    assertThat(store.messagesGet("q", id)).isPresent();

    assertThat(indexes(file)).doesNotContain(SqliteSchema.LEGACY_ID_INDEX)
        .noneMatch(name -> name.startsWith("sqlite_autoindex_messages"));
  }

  @Test
  void aSeqIsNeverGivenTwiceNotEvenAfterTheNewestMessagesAreDeletedAndTheStoreReopens()
      throws Exception {
    Path file = dir.resolve("reuse.db");
    open(file);
    String a = publish("a");
    String b = publish("b");
    assertThat(store.messagesDelete("q", a)).isTrue();
    assertThat(store.messagesDelete("q", b)).isTrue();

    // The clock is fixed: only the seq tells the next ids apart from the deleted ones.
    List<String> later = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      reopen(file);
      later.add(publish("later-" + i));
    }
    assertThat(later).doesNotContain(a, b).doesNotHaveDuplicates();
    assertThat(later).extracting(MessageIds::seqOf).allMatch(seq -> seq > MessageIds.seqOf(b))
        .isSorted();
    assertThat(store.messagesGet("q", a)).isEmpty();
    assertThat(store.messagesGet("q", b)).isEmpty();
    for (int i = 0; i < later.size(); i++) {
      assertThat(payload("q", later.get(i))).isEqualTo("later-" + i);
    }
  }

  @Test
  void anOlderDatabaseKeepsItsIdsUntilTheirMessagesAreGone() throws Exception {
    Path file = dir.resolve("v1.db");
    String a = MessageIds.random(NOW.toEpochMilli());
    // Reads as seq 1, which is message a: found through the older index all the same.
    String b = MessageIds.sequenced(NOW.toEpochMilli(), 1);
    String dead = MessageIds.random(NOW.toEpochMilli());
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      SqliteSchema.migrate(c, 1);
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO queues(name, settings) VALUES ('q', '{}'), ('q-dlq', '{}')");
      }
      insertV1(c, 1, a, "q", null, "a");
      insertV1(c, 2, b, "q", null, "b");
      insertV1(c, 3, dead, "q-dlq", "q", "dead");
    }

    open(file);
    assertThat(indexes(file)).contains(SqliteSchema.LEGACY_ID_INDEX)
        .noneMatch(name -> name.startsWith("sqlite_autoindex_messages"));
    assertThat(payload("q", a)).isEqualTo("a");
    assertThat(payload("q", b)).isEqualTo("b");
    assertThat(payload("q-dlq", dead)).isEqualTo("dead");
    String fresh = publish("fresh");
    assertThat(MessageIds.seqOf(fresh)).isEqualTo(4);
    assertThat(payload("q", fresh)).isEqualTo("fresh");

    assertThat(store.messagesRedrive(new RedriveRequest("q-dlq", "q", List.of(dead), NOW, 10)))
        .isEqualTo(new Redriven(1, List.of()));
    assertThat(payload("q", dead)).isEqualTo("dead");
    assertThat(store.messagesDelete("q", a)).isTrue();
    assertThat(store.messagesDelete("q", b)).isTrue();
    assertThat(store.messagesGet("q", a)).isEmpty();

    // One older row left: the index stays.
    reopen(file);
    assertThat(indexes(file)).contains(SqliteSchema.LEGACY_ID_INDEX);
    assertThat(payload("q", dead)).isEqualTo("dead");
    assertThat(store.messagesDelete("q", dead)).isTrue();

    // None left: the index goes, and ids of the newer kind are all there is to look up.
    reopen(file);
    assertThat(indexes(file)).doesNotContain(SqliteSchema.LEGACY_ID_INDEX);
    assertThat(payload("q", fresh)).isEqualTo("fresh");
    assertThat(store.messagesGet("q", dead)).isEmpty();
  }

  private void open(Path file) {
    store = new SqliteStore(file);
    store.start();
    store.queuesPut(new QueueRecord("q", "{}", null));
  }

  private void reopen(Path file) {
    store.close();
    store = null;
    open(file);
  }

  private String publish(String payload) {
    NewMessage m =
        new NewMessage(
            ContentType.TEXT, payload.getBytes(StandardCharsets.UTF_8), Map.of(), null, NOW,
            null, null, null);
    return store.messagesPublish(new PublishBatch("q", List.of(m), NOW, NOW)).get(0).id();
  }

  private String payload(String queue, String id) {
    return new String(store.messagesGet(queue, id).orElseThrow().payload(), StandardCharsets.UTF_8);
  }

  /** A ready row as version 1 wrote it; with an original queue, a dead letter. */
  private static void insertV1(
      Connection c, long seq, String id, String queue, String originalQueue, String payload)
      throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO messages(seq, id, queue, state, content_type, payload, attempt,"
                + " published_at, visible_at, original_queue) VALUES (?, ?, ?, 0, ?, ?, 0, ?, ?, ?)")) {
      ps.setLong(1, seq);
      ps.setString(2, id);
      ps.setString(3, queue);
      ps.setInt(4, ContentType.TEXT.ordinal());
      ps.setBytes(5, payload.getBytes(StandardCharsets.UTF_8));
      ps.setLong(6, NOW.toEpochMilli());
      ps.setLong(7, NOW.toEpochMilli());
      ps.setString(8, originalQueue);
      ps.executeUpdate();
    }
  }

  private static List<String> indexes(Path file) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'index'")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
