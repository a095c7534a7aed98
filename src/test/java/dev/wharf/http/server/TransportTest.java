package dev.wharf.http.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Which transport a config asks for gets, whatever this machine offers. */
class TransportTest {
  private static Transport.Natives offering(boolean ioUring, boolean epoll) {
    return new Transport.Natives() {
      @Override
      public Throwable ioUringMissing() {
        return ioUring ? null : new UnsupportedOperationException("io_uring_setup: EPERM");
      }

      @Override
      public Throwable epollMissing() {
        return epoll ? null : new UnsupportedOperationException("not Linux");
      }
    };
  }

  @Test
  void autoTakesTheFirstOfIoUringEpollAndNioOnOffer() {
    assertThat(Transport.AUTO.choose(offering(true, true)).transport())
        .isEqualTo(Transport.IO_URING);
    assertThat(Transport.AUTO.choose(offering(false, true)).transport())
        .isEqualTo(Transport.EPOLL);
    assertThat(Transport.AUTO.choose(offering(false, false)).transport())
        .isEqualTo(Transport.NIO);
  }

  @Test
  void aNamedTransportTheMachineLacksIsRefusedWithTheReason() {
    assertThatThrownBy(() -> Transport.IO_URING.choose(offering(false, true)))
        .isInstanceOf(Transport.Unavailable.class)
        .hasMessage(
            "io_uring is not available here (io_uring_setup: EPERM);"
                + " set server.transport to auto to use what is");
    assertThatThrownBy(() -> Transport.EPOLL.choose(offering(true, false)))
        .isInstanceOf(Transport.Unavailable.class)
        .hasMessageStartingWith("epoll is not available here (not Linux)");
    assertThat(Transport.NIO.choose(offering(false, false)).transport()).isEqualTo(Transport.NIO);
  }

  @Test
  void configNamesRoundTrip() {
    for (Transport t : Transport.values()) {
      assertThat(Transport.fromConfig(t.configName())).isEqualTo(t);
    }
    assertThat(Transport.IO_URING.configName()).isEqualTo("io_uring");
    assertThat(Transport.fromConfig("IO_URING")).isNull();
    assertThat(Transport.fromConfig("kqueue")).isNull();
  }
}
