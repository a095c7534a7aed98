package dev.wharf.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What the real server's accept loop cannot be made to show on demand: a connection accepted in
 * the same burst as the one that reached the cap.
 */
class ConnectionCapTest {
  private final ConnectionCap cap =
      new ConnectionCap(2, (status, code, detail) -> ("{\"code\":\"" + code + "\"}").getBytes());
  private final EmbeddedChannel listener = new EmbeddedChannel();

  @Test
  void theCapPausesAcceptingAndOnePastItIsAnswered503AndClosed() {
    cap.listening(listener);
    EmbeddedChannel first = new EmbeddedChannel();
    EmbeddedChannel second = new EmbeddedChannel();
    EmbeddedChannel past = new EmbeddedChannel();

    assertThat(cap.admit(first)).isTrue();
    assertThat(listener.config().isAutoRead()).isTrue();
    assertThat(cap.admit(second)).isTrue();
    assertThat(listener.config().isAutoRead()).isFalse();

    assertThat(cap.admit(past)).isFalse();
    ByteBuf answer = past.readOutbound();
    String text = answer.toString(StandardCharsets.US_ASCII);
    answer.release();
    assertThat(text)
        .startsWith("HTTP/1.1 503 ")
        .containsIgnoringCase("retry-after: 1")
        .containsIgnoringCase("connection: close")
        .endsWith("{\"code\":\"server_busy\"}");
    assertThat(past.isOpen()).isFalse();
    assertThat(cap.refused()).isEqualTo(1);
    // Its close gave its place back; the two admitted still fill the cap.
    assertThat(cap.open()).isEqualTo(2);
    assertThat(listener.config().isAutoRead()).isFalse();

    first.close();
    assertThat(cap.open()).isEqualTo(1);
    assertThat(listener.config().isAutoRead()).isTrue();
    assertThat(cap.pauses()).isEqualTo(1);
  }

  @Test
  void aCapReachedBeforeTheListenerIsBoundPausesItWhenItIs() {
    ConnectionCap one =
        new ConnectionCap(1, (status, code, detail) -> new byte[0]);
    assertThat(one.admit(new EmbeddedChannel())).isTrue();
    one.listening(listener);
    assertThat(listener.config().isAutoRead()).isFalse();
  }
}
