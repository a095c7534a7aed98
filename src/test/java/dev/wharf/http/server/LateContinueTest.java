package dev.wharf.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateEvent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A request whose 100 Continue waited for the answer before it, on an embedded channel whose quiet
 * periods end where the test says: on a real server their ends fall wherever the clock puts them,
 * which may be just after that Continue.
 */
class LateContinueTest {
  private final AtomicReference<Response> held = new AtomicReference<>();
  private EmbeddedChannel channel;

  @BeforeEach
  void open() {
    Router router = new Router((req, res, template, allowed) -> res.status(404).send());
    router.add(
        "GET",
        "/held",
        Handler.nonBlocking(
            (req, res) -> {
              res.later();
              held.set(res);
            }));
    router.add("POST", "/echo", Handler.nonBlocking((req, res) -> res.send(req.body())));
    Connection connection =
        new Connection(
            router,
            (status, code, detail) -> code.getBytes(StandardCharsets.UTF_8),
            1024,
            new BodyBudget(4096),
            2,
            new AtomicBoolean());
    channel =
        new EmbeddedChannel(
            connection.quietPeriods(),
            new HttpServerCodec(new HttpDecoderConfig(), Integer.MAX_VALUE),
            connection) {
          @Override
          protected SocketAddress remoteAddress0() {
            // A request carries its client's address, which a real channel has.
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000);
          }
        };
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  @Test
  void theClientHasAWholeQuietPeriodAfterALateContinue() {
    send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n"
        + "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
    quietPeriodEnds();
    assertThat(written()).isEmpty();

    held.get().send("held".getBytes(StandardCharsets.UTF_8));
    assertThat(written()).startsWith("HTTP/1.1 200 ").contains("held")
        .endsWith("HTTP/1.1 100 Continue\r\n\r\n");
    // The period that began with the headers ends now, just after the Continue.
    quietPeriodEnds();
    assertThat(written()).isEmpty();

    send("ab");
    assertThat(written()).startsWith("HTTP/1.1 200 ").endsWith("ab");
  }

  @Test
  void aClientSilentAWholePeriodAfterALateContinueIsStillRefused() {
    send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n"
        + "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
    held.get().send("held".getBytes(StandardCharsets.UTF_8));
    assertThat(written()).endsWith("HTTP/1.1 100 Continue\r\n\r\n");

    quietPeriodEnds();
    quietPeriodEnds();
    assertThat(written()).startsWith("HTTP/1.1 408 ").endsWith("request_timeout");
  }

  @Test
  void aContinueSentAtOnceGetsNoExtraPeriod() {
    send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
    assertThat(written()).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");

    quietPeriodEnds();
    assertThat(written()).startsWith("HTTP/1.1 408 ");
  }

  private void send(String text) {
    channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    channel.runPendingTasks();
  }

  /** What the real server's idle handler fires when nothing was read for a period. */
  private void quietPeriodEnds() {
    channel.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
    channel.runPendingTasks();
  }

  /** Everything written since the last call. */
  private String written() {
    channel.runPendingTasks();
    StringBuilder out = new StringBuilder();
    for (ByteBuf b = channel.readOutbound(); b != null; b = channel.readOutbound()) {
      out.append(b.toString(StandardCharsets.US_ASCII));
      b.release();
    }
    return out.toString();
  }
}
