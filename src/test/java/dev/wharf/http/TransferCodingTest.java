package dev.wharf.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.testing.RawHttp;
import java.net.Socket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Request bodies framed by Transfer-Encoding: only chunked is understood. */
class TransferCodingTest extends OneServerTest {
  private static final String BODY = "{\"body\": 1}";
  private static final String CHUNKED =
      Integer.toHexString(BODY.length()) + "\r\n" + BODY + "\r\n0\r\n\r\n";

  @BeforeEach
  void queue() {
    api.put("/v1/queues/c", "{}");
  }

  @Test
  void chunkedAloneIsRead() throws Exception {
    assertThat(publish("Transfer-Encoding: chunked\r\n", CHUNKED)).startsWith("HTTP/1.1 201 ");
    assertThat(ready()).isEqualTo(1);
  }

  @Test
  void aTransferCodingOtherThanChunkedIsNotImplementedAndNothingIsPublished() throws Exception {
    for (String codings :
        new String[] {
          "Transfer-Encoding: gzip, chunked\r\n",
          "Transfer-Encoding: foo, chunked\r\n",
          "Transfer-Encoding: foo\r\nTransfer-Encoding: chunked\r\n"
        }) {
      assertThat(publish(codings, CHUNKED))
          .as(codings)
          .startsWith("HTTP/1.1 501 ")
          .contains("\"not_implemented\"", "chunked");
    }
    assertThat(ready()).isZero();
  }

  @Test
  void aChunkSizeLineTooLongIsABadRequestNotALongRequestLine() throws Exception {
    String chunk =
        Integer.toHexString(BODY.length()) + ";ext=" + "a".repeat(20_000) + "\r\n" + BODY
            + "\r\n0\r\n\r\n";
    assertThat(publish("Transfer-Encoding: chunked\r\n", chunk))
        .startsWith("HTTP/1.1 400 ")
        .contains("\"invalid_request\"", "chunk");
    String trailer = CHUNKED.replace("0\r\n\r\n", "0\r\nX-T: " + "t".repeat(20_000) + "\r\n\r\n");
    assertThat(publish("Transfer-Encoding: chunked\r\n", trailer))
        .startsWith("HTTP/1.1 400 ")
        .contains("\"invalid_request\"", "trailer");
    assertThat(ready()).isZero();
  }

  private int ready() {
    return server.api.get("/v1/queues/c").json().at("/stats/ready").asInt();
  }

  private String publish(String framing, String body) throws Exception {
    try (Socket s = RawHttp.connect(server.http.port())) {
      RawHttp.write(
          s,
          "POST /v1/queues/c/messages HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
              + framing + "Connection: close\r\n\r\n" + body);
      return RawHttp.readAll(s);
    }
  }
}
