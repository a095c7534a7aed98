package dev.wharf.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 over a plain socket, for tests that need what a client library hides: requests sent
 * in pieces, pipelined, or never finished.
 */
public final class RawHttp {
  private RawHttp() {}

  /** A connection to 127.0.0.1 whose reads give up after 10 s. */
  public static Socket connect(int port) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout(10_000);
    return s;
  }

  /** The text of an HTTP/1.1 POST of a JSON body (ASCII bodies: the length counts chars). */
  public static String jsonPost(String path, String body) {
    return "POST " + path + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + body.length() + "\r\n\r\n" + body;
  }

  public static void write(Socket s, String text) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** Reads until {@code marker} has arrived (bounded by the socket's timeout). */
  public static String readUntil(Socket s, String marker) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    while (!got.toString(StandardCharsets.UTF_8).contains(marker)) {
      int n = in.read(buf);
      if (n < 0) {
        break;
      }
      got.write(buf, 0, n);
    }
    return got.toString(StandardCharsets.UTF_8);
  }

  /** Reads until the server closes the connection. */
  public static String readAll(Socket s) throws IOException {
    return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}
