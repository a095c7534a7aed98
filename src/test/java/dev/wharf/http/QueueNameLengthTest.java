package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.http.Api.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Names up to 128 characters; a default DLQ name must fit the same bound. */
class QueueNameLengthTest {
  @TempDir Path dir;

  @Test
  void aLongNameWhoseDefaultDlqWouldNotFitSaysSoAndTakesAnExplicitOne() {
    try (TestServer s = new TestServer(dir, null, false, "127.0.0.1")) {
      String name = "b".repeat(128);
      Reply refused = s.api.put("/v1/queues/" + name, "{}");
      assertThat(refused.status()).isEqualTo(400);
      assertThat(refused.json().get("detail").asText())
          .contains("dead_letter_queue: the default")
          .contains("longer than 128 characters");
      assertThat(s.api.get("/v1/queues/" + name).status()).isEqualTo(404);

      assertThat(s.api.put("/v1/queues/" + name, "{\"dead_letter_queue\": \"long.dlq\"}").status())
          .isEqualTo(201);
      assertThat(s.api.put("/v1/queues/" + "c".repeat(124), "{}").status()).isEqualTo(201);
      assertThat(s.api.get("/v1/queues/" + "c".repeat(124) + ".dlq").status()).isEqualTo(200);
    }
  }

  @Test
  void anInvalidNameIsReportedOnceNotAgainForItsDefaultDlq() {
    try (TestServer s = new TestServer(dir, null, false, "127.0.0.1")) {
      Reply refused = s.api.put("/v1/queues/" + "d".repeat(129), "{}");
      assertThat(refused.status()).isEqualTo(400);
      assertThat(refused.json().get("detail").asText()).doesNotContain("dead_letter_queue");
    }
  }
}
