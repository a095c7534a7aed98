package dev.wharf.loopback;

import java.io.Closeable;
import java.io.IOException;

/** One client's way to the server; the bench can run on either implementation to compare them. */
public interface HttpConn extends Closeable {

  record Response(int status, byte[] body) {
    public boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  /** Sends one request and reads the whole answer. {@code body} null = no body. */
  Response send(String method, String path, byte[] body) throws IOException;

  @Override
  void close();
}
