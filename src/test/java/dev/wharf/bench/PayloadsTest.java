package dev.wharf.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PayloadsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void everyMessageBodyIsOneKilobyteOfJsonCarryingItsSendTime() throws IOException {
    for (long sent : new long[] {0, 42, Long.MAX_VALUE, -5}) {
      String body = Payloads.messageBody(sent);
      assertThat(body.getBytes(StandardCharsets.UTF_8)).hasSize(1024);
      assertThat(JSON.readTree(body).path("sent_ns").asLong()).isEqualTo(sent);
    }
    JsonNode batch = JSON.readTree(Payloads.publishBatch(100, 7));
    assertThat(batch.path("messages")).hasSize(100);
    assertThat(batch.path("messages").get(99).path("body").path("sent_ns").asLong()).isEqualTo(7);
    assertThat(JSON.readTree(Payloads.ack(List.of("a.1", "b.2"))).path("lease_ids"))
        .extracting(JsonNode::asText).containsExactly("a.1", "b.2");
  }

  @Test
  void aReceiveAnswerYieldsLeaseIdsAndSendTimesWhateverElseItHolds() throws IOException {
    String answer = "{\"messages\":[{\"id\":\"1\",\"lease_id\":\"L1\",\"attempt\":1,\"body\":"
        + Payloads.messageBody(123) + ",\"headers\":{\"lease_id\":\"not-a-lease\"},"
        + "\"metadata\":{\"body\":{\"sent_ns\":9}}},"
        + "{\"id\":\"2\",\"lease_id\":\"L2\",\"body\":" + Payloads.messageBody(456) + "}]}";
    Received r = Received.parse(answer.getBytes(StandardCharsets.UTF_8));
    assertThat(r.sentNs()).containsExactly(123, 456);
    assertThat(r.leaseIds()).containsExactly("L1", "L2");
    assertThat(Received.parse("{\"messages\":[]}".getBytes()).size()).isZero();
  }

  @Test
  void mediansOfOddAndEvenCounts() {
    assertThat(Medians.median(new double[] {3, 1, 2})).isEqualTo(2);
    assertThat(Medians.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
  }
}
