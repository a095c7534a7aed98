package dev.wharf.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.core.BrokerOptions;
import dev.wharf.core.Publish;
import dev.wharf.core.QueueSettingsPatch;
import dev.wharf.store.ContentType;
import dev.wharf.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a full disk an operator's purge or delete runs in the room kept for it ({@link RoomReserve}).
 * The full disk is SQLite's page limit, and a trigger makes each deleted row take pages, as a
 * deletion's WAL frames take room on a real disk; giving the room up lifts the limit.
 */
class SqliteRoomReserveTest {
  @TempDir Path dir;
  private SqliteStore store;
  private Broker broker;

  /** Room kept once: giving it up lets the database grow again. */
  private static final class PageLimitReserve extends RoomReserve {
    private final boolean kept;
    int givenUp;
    int madeAgain;

    PageLimitReserve(Path db, boolean kept) {
      super(db, 0);
      this.kept = kept;
    }

    @Override
    boolean held() {
      return kept && givenUp == 0;
    }

    @Override
    synchronized boolean ensure(boolean fromItsOwnRoom) {
      if (fromItsOwnRoom) {
        madeAgain++;
      }
      return held();
    }

    @Override
    synchronized boolean release(Connection writer) {
      if (!held()) {
        return false;
      }
      givenUp++;
      try (Statement s = writer.createStatement()) {
        s.execute("PRAGMA max_page_count = 1000000000");
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return true;
    }
  }

  private PageLimitReserve startFull(boolean roomKept) {
    Path db = dir.resolve("wharf.db");
    PageLimitReserve reserve = new PageLimitReserve(db, roomKept);
    store = new SqliteStore(db);
    store.keepRoomWith(reserve);
    store.start();
    broker = new Broker(store, MutableClock.atEpochDay(), BrokerOptions.defaults(),
        new SimpleMeterRegistry());
    broker.startWithoutReapers();
    broker.putQueue("q", QueueSettingsPatch.EMPTY);
    broker.publish("q", batch(20));
    store.writer().submit(tx -> {
      try (Statement s = tx.conn.createStatement()) {
        s.execute("CREATE TABLE room_taken(b BLOB)");
        s.execute("CREATE TRIGGER take_room AFTER DELETE ON messages"
            + " BEGIN INSERT INTO room_taken VALUES (zeroblob(65536)); END");
        long pages;
        try (ResultSet rs = s.executeQuery("PRAGMA page_count")) {
          rs.next();
          pages = rs.getLong(1);
        }
        s.execute("PRAGMA max_page_count = " + pages);
      }
      return null;
    });
    assertThatThrownBy(() -> broker.publish("q", batch(20)))
        .isInstanceOf(BrokerException.Unavailable.class);
    return reserve;
  }

  @AfterEach
  void stop() {
    if (broker != null) {
      broker.close();
    }
    if (store != null) {
      store.close();
    }
  }

  private static List<Publish> batch(int n) {
    return SqliteFullDiskTest.batch(n);
  }

  /** What a full disk did to a purge before room was kept for it, and still does without. */
  @Test
  void withoutRoomKeptAPurgeOnAFullDiskFails() {
    startFull(false);
    assertThatThrownBy(() -> broker.purge("q")).isInstanceOf(BrokerException.Unavailable.class);
    assertThat(broker.stats("q").counts().ready()).isEqualTo(20);
  }

  @Test
  void aPurgeOnAFullDiskRunsInTheRoomKeptForIt() {
    PageLimitReserve reserve = startFull(true);
    assertThat(broker.purge("q")).isEqualTo(20);
    assertThat(reserve.givenUp).isEqualTo(1);
    // What is left of the room is kept again, before publishes may take it.
    assertThat(reserve.madeAgain).isEqualTo(1);
    assertThat(broker.stats("q").counts().ready()).isZero();
    // Done: writes go on, in the room the purge made.
    broker.publish("q", batch(20));
  }

  @Test
  void aMessageDeletedOnAFullDiskRunsInTheRoomKeptForIt() {
    PageLimitReserve reserve = startFull(true);
    String id = broker.browse("q", null, null, 0, 1).get(0).id();
    broker.deleteMessage("q", id);
    assertThat(reserve.givenUp).isEqualTo(1);
    assertThat(broker.stats("q").counts().ready()).isEqualTo(19);
  }

  @Test
  void aQueueDeletedOnAFullDiskRunsInTheRoomKeptForIt() {
    PageLimitReserve reserve = startFull(true);
    assertThat(broker.deleteQueue("q")).isTrue();
    assertThat(reserve.givenUp).isEqualTo(1);
    assertThat(broker.queueNames()).doesNotContain("q");
  }

  /**
   * Once the room is given up, nothing but the deletions under way may take it: a purge's later
   * chunks need it too. Publishes are refused as on a full disk until they are done.
   */
  @Test
  void whileADeletionHasTheRoomOtherWritesAreRefused() {
    PageLimitReserve reserve = startFull(true);
    String id = broker.browse("q", null, null, 0, 1).get(0).id();
    store.writer().makingRoom(() -> {
      broker.deleteMessage("q", id);
      assertThat(reserve.givenUp).isEqualTo(1);
      assertThatThrownBy(() -> broker.publish("q", batch(1)))
          .isInstanceOf(BrokerException.Unavailable.class)
          .hasMessageContaining("goes to a purge or delete under way");
      return null;
    });
    broker.publish("q", batch(1));
    assertThat(broker.stats("q").counts().ready()).isEqualTo(20);
  }

  /**
   * While only the deletions under way may write, readiness says writes are failing: the
   * deletion's own batch on disk ends the write failure it began with, and a load balancer told
   * the server is ready would send it publishes that are all refused.
   */
  @Test
  void whileADeletionHasTheRoomTheServerIsNotReady() {
    startFull(true);
    String id = broker.browse("q", null, null, 0, 1).get(0).id();
    store.writer().makingRoom(() -> {
      broker.deleteMessage("q", id);
      assertThat(broker.unready()).contains("goes to a purge or delete under way");
      return null;
    });
    assertThat(broker.unready()).isNull();
  }

  /**
   * A deletion that failed in a batch with other writes runs again alone and is given the room;
   * the writes batched after it must not then take that room when they run again alone.
   */
  @Test
  void writesBatchedWithTheDeletionGivenTheRoomAreRefused() throws Exception {
    PageLimitReserve reserve = startFull(true);
    String id = broker.browse("q", null, null, 0, 1).get(0).id();
    CountDownLatch hold = new CountDownLatch(1);
    CompletableFuture<Object> holding = store.writer().submitAsync(tx -> {
      try {
        hold.await();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      return null;
    }, WriteAnswer.DURABLE);
    CompletableFuture<Boolean> deleted = new CompletableFuture<>();
    Thread deleting = Thread.ofPlatform().start(() -> {
      try {
        broker.deleteMessage("q", id);
        deleted.complete(true);
      } catch (Throwable t) {
        deleted.completeExceptionally(t);
      }
    });
    awaitParked(deleting);
    CompletableFuture<Object> published = new CompletableFuture<>();
    Thread publishing = Thread.ofPlatform().start(() -> {
      try {
        published.complete(broker.publish("q", batch(1)));
      } catch (Throwable t) {
        published.completeExceptionally(t);
      }
    });
    awaitParked(publishing);
    hold.countDown();
    holding.get(10, TimeUnit.SECONDS);
    deleted.get(10, TimeUnit.SECONDS);
    assertThat(reserve.givenUp).isEqualTo(1);
    assertThatThrownBy(() -> published.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(BrokerException.Unavailable.class)
        .hasMessageContaining("goes to a purge or delete under way");
    assertThat(broker.stats("q").counts().ready()).isEqualTo(19);
  }

  /** Waits for a thread to park, as it does once its write is queued. */
  private static void awaitParked(Thread t) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (t.getState() != Thread.State.WAITING) {
      assertThat(System.nanoTime()).isLessThan(until);
      Thread.sleep(5);
    }
  }

  /** The file holds its room for real (zeros written, not a sparse length) and comes back. */
  @Test
  void theReserveFileIsMadeGivenUpAndMadeAgain() throws Exception {
    RoomReserve reserve = new RoomReserve(dir.resolve("x.db"), 3 << 20);
    assertThat(reserve.ensure(false)).isTrue();
    Path file = dir.resolve("x.db.reserve");
    assertThat(Files.size(file)).isEqualTo(3 << 20);
    assertThat(Files.readAllBytes(file)).containsOnly(0);
    assertThat(reserve.release(null)).isTrue();
    assertThat(file).doesNotExist();
    assertThat(reserve.release(null)).isFalse();
    assertThat(reserve.ensure(true)).isTrue();
    assertThat(file).exists();
    // One left by an earlier run is taken as it is.
    assertThat(new RoomReserve(dir.resolve("x.db"), 3 << 20).ensure(false)).isTrue();
  }
}
