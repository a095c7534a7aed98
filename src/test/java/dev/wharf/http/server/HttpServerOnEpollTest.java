package dev.wharf.http.server;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;

/** {@link HttpServerTest} on epoll, where the machine offers it. */
class HttpServerOnEpollTest extends HttpServerTest {
  @Override
  Transport transport() {
    assumeTrue(Epoll.isAvailable(), "epoll is not available here");
    return Transport.EPOLL;
  }
}
