package dev.wharf.http.server;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.uring.IoUring;

/** {@link HttpServerTest} on io_uring, where the machine offers it. */
class HttpServerOnIoUringTest extends HttpServerTest {
  @Override
  Transport transport() {
    assumeTrue(IoUring.isAvailable(), "io_uring is not available here");
    return Transport.IO_URING;
  }
}
