package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.http.Api.Reply;
import dev.wharf.store.StoreException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When storage fails, readiness says so and requests get JSON errors, never a stack trace. */
class StorageFailureTest {
  @TempDir Path dir;

  @Test
  void storageFailureIsUnavailable() {
    try (TestServer s = new TestServer(dir)) {
      s.api.put("/v1/queues/q", "{}");
      assertThat(s.api.get("/readyz").status()).isEqualTo(200);
      s.storeFailure = new StoreException("disk gone");

      Reply ready = s.api.get("/readyz");
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.code()).isEqualTo("unavailable");
      // A probe, or a client that waits for readiness, is told when to ask again.
      assertThat(ready.raw().headers().firstValue("Retry-After")).hasValue("1");
      assertThat(s.api.get("/healthz").status()).isEqualTo(200);
      Reply pub = s.api.post("/v1/queues/q/messages", "{\"body\": 1}");
      assertThat(pub.status()).isEqualTo(503);
      assertThat(pub.code()).isEqualTo("unavailable");
      // A client is told to come back, as for every other 503.
      assertThat(pub.raw().headers().firstValue("Retry-After")).hasValue("1");
      Reply got = s.api.post("/v1/queues/q/receive", "{}");
      assertThat(got.status()).isEqualTo(503);

      s.storeFailure = null;
      assertThat(s.api.get("/v1/queues/q").json().at("/stats/ready").asInt()).isZero();
    }
  }

  /** A database's error of several lines (PostgreSQL adds the position) answers its first. */
  @Test
  void aFailureOfSeveralLinesAnswersItsFirst() {
    try (TestServer s = new TestServer(dir)) {
      s.api.put("/v1/queues/q", "{}");
      s.storeFailure =
          new StoreException("ERROR: relation \"queues\" does not exist\n  Position: 18");
      Reply pub = s.api.post("/v1/queues/q/messages", "{\"body\": 1}");
      assertThat(pub.status()).isEqualTo(503);
      assertThat(pub.detail())
          .isEqualTo("storage failed: ERROR: relation \"queues\" does not exist");
    }
  }

  @Test
  void anUnexpectedFailureIsAPlainInternalError() {
    try (TestServer s = new TestServer(dir)) {
      s.api.put("/v1/queues/q", "{}");
      s.storeFailure = new IllegalStateException("a bug, with a secret inside");
      Reply r = s.api.post("/v1/queues/q/messages", "{\"body\": 1}");
      assertThat(r.status()).isEqualTo(500);
      assertThat(r.code()).isEqualTo("internal");
      assertThat(r.detail()).isEqualTo("internal error");
      assertThat(r.text()).doesNotContain("secret").doesNotContain("Exception");
    }
  }
}
