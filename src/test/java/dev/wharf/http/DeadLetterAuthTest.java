package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.http.Api.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A DLQ holds its source queues' messages, so their consumer tokens guard it too. */
class DeadLetterAuthTest {
  @TempDir Path dir;

  @Test
  void aProtectedQueuesDlqTakesItsConsumerTokensAndNothingLess() {
    try (TestServer s = new TestServer(dir, "adm1n", false, "127.0.0.1")) {
      Api admin = s.api.withToken("adm1n");
      Api consumer = s.api.withToken("b1ll");
      admin.put("/v1/queues/billing", "{\"consumer_tokens\": [\"b1ll\"], \"max_attempts\": 1}");
      admin.put("/v1/queues/open", "{}");
      killOne(consumer, "billing");

      Reply anonymous = s.api.post("/v1/queues/billing.dlq/receive", "{}");
      assertThat(anonymous.status()).isEqualTo(401);
      assertThat(
              s.api.withToken("wrong").post("/v1/queues/billing.dlq/messages", "{\"body\": 3}")
                  .status())
          .isEqualTo(401);
      assertThat(admin.get("/v1/queues/billing.dlq").json().at("/stats/ready").asInt())
          .as("the refused receives took nothing")
          .isEqualTo(1);
      Reply got = consumer.post("/v1/queues/billing.dlq/receive", "{}");
      assertThat(got.json().at("/messages/0/original_queue").asText()).isEqualTo("billing");

      // A queue without tokens leaves its DLQ open, as it is itself.
      assertThat(s.api.post("/v1/queues/open.dlq/messages", "{\"body\": 2}").status())
          .isEqualTo(201);
      // Once the source opens up, so does its DLQ.
      admin.put("/v1/queues/billing", "{\"consumer_tokens\": []}");
      assertThat(s.api.post("/v1/queues/billing.dlq/receive", "{}").status()).isEqualTo(200);
    }
  }

  @Test
  void aDlqLeftBehindKeepsTheTokensOfTheQueueThatLeftIt() {
    try (TestServer s = new TestServer(dir, "adm1n", false, "127.0.0.1")) {
      Api admin = s.api.withToken("adm1n");
      Api consumer = s.api.withToken("p4y");
      admin.put("/v1/queues/pay", "{\"consumer_tokens\": [\"p4y\"], \"max_attempts\": 1}");
      admin.put("/v1/queues/pay.dlq", "{\"consumer_tokens\": [\"ops\"]}");
      killOne(consumer, "pay");

      // Pointed elsewhere, the queue no longer feeds pay.dlq; its dead message is still there.
      admin.put("/v1/queues/pay", "{\"dead_letter_queue\": \"pay.dlq2\"}");
      assertThat(s.api.post("/v1/queues/pay.dlq/receive", "{}").status()).isEqualTo(401);
      assertThat(s.api.post("/v1/queues/pay.dlq/messages", "{\"body\": 9}").status())
          .isEqualTo(401);
      assertThat(admin.get("/v1/queues/pay.dlq").json().at("/settings/consumer_tokens").asInt())
          .as("its own token and the one it kept")
          .isEqualTo(2);
      assertThat(s.api.withToken("ops").post("/v1/queues/pay.dlq/messages", "{\"body\": 1}").status())
          .isEqualTo(201);
      Reply kept = consumer.post("/v1/queues/pay.dlq/receive", "{\"max\": 10}");
      assertThat(kept.status()).isEqualTo(200);
      assertThat(kept.json().at("/messages").size()).isEqualTo(2);

      // Deleted, the queue leaves its present DLQ guarded the same way.
      killOne(consumer, "pay");
      assertThat(admin.delete("/v1/queues/pay").status()).isEqualTo(204);
      assertThat(s.api.post("/v1/queues/pay.dlq2/receive", "{}").status()).isEqualTo(401);
      assertThat(consumer.post("/v1/queues/pay.dlq2/receive", "{}").json().at("/messages")
              .size())
          .isEqualTo(1);
    }
  }

  /** Publishes one message to {@code queue} and nacks it dead. */
  private static void killOne(Api consumer, String queue) {
    assertThat(consumer.post("/v1/queues/" + queue + "/messages", "{\"body\": 1}").status())
        .isEqualTo(201);
    String lease =
        consumer.post("/v1/queues/" + queue + "/receive", "{}").json().at("/messages/0/lease_id")
            .asText();
    assertThat(
            consumer.post("/v1/queues/" + queue + "/nack", "{\"lease_id\": \"" + lease + "\"}")
                .json().at("/results/0/outcome").asText())
        .isEqualTo("dead");
  }
}
