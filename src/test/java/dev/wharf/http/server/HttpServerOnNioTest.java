package dev.wharf.http.server;

/** {@link HttpServerTest} on Java's NIO, the transport of every platform. */
class HttpServerOnNioTest extends HttpServerTest {
  @Override
  Transport transport() {
    return Transport.NIO;
  }
}
