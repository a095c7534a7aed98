package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.http.Api.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET and DELETE of one message by id, as docs/api.md says them. */
class OneMessageRoutesTest {
  @TempDir Path dir;
  TestServer server;
  Api api;

  @BeforeEach
  void start() {
    server = new TestServer(dir);
    api = server.api;
    assertThat(api.put("/v1/queues/q", "{\"max_attempts\": 1}").status()).isEqualTo(201);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String publish() {
    return api.post("/v1/queues/q/messages", "{\"body\": 1}").json().get("id").asText();
  }

  private String leaseOne() {
    Reply r = api.post("/v1/queues/q/receive", "{}");
    return r.json().at("/messages/0/lease_id").asText();
  }

  @Test
  void aDeadMessageIsFoundAndDeletedUnderItsDeadLetterQueuesName() {
    String id = publish();
    assertThat(api.post("/v1/queues/q/nack", "{\"lease_id\": \"" + leaseOne() + "\"}").status())
        .isEqualTo(200);

    assertThat(api.get("/v1/queues/q/messages/" + id).code()).isEqualTo("message_not_found");
    Reply dead = api.get("/v1/queues/q.dlq/messages/" + id);
    assertThat(dead.status()).isEqualTo(200);
    assertThat(dead.json().get("original_queue").asText()).isEqualTo("q");
    assertThat(dead.json().has("lease_id")).isFalse();

    assertThat(api.delete("/v1/queues/q/messages/" + id).status()).isEqualTo(404);
    assertThat(api.delete("/v1/queues/q.dlq/messages/" + id).status()).isEqualTo(204);
    assertThat(api.delete("/v1/queues/q.dlq/messages/" + id).code())
        .isEqualTo("message_not_found");
  }

  @Test
  void aLeasedMessageIsDeletedAndItsLeaseIsThenUnknown() {
    String id = publish();
    String lease = leaseOne();
    assertThat(api.get("/v1/queues/q/messages/" + id).json().get("state").asText())
        .isEqualTo("leased");

    assertThat(api.delete("/v1/queues/q/messages/" + id).status()).isEqualTo(204);
    Reply ack = api.post("/v1/queues/q/ack", "{\"lease_id\": \"" + lease + "\"}");
    assertThat(ack.status()).isEqualTo(409);
    assertThat(ack.json().at("/results/0/outcome").asText()).isEqualTo("lease_not_found");
  }
}
