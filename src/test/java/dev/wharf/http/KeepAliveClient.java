package dev.wharf.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over one socket kept open between requests, opened again when the server closes it.
 * An event stream's answer is not read to its end (it has none): its head is kept and the
 * connection dropped.
 */
final class KeepAliveClient implements AutoCloseable {
  record Reply(int status, Map<String, String> headers, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  private final int port;
  private Socket socket;
  private InputStream in;

  KeepAliveClient(int port) {
    this.port = port;
  }

  Reply send(WireRequest req) {
    try {
      if (socket == null) {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5_000);
        socket.setTcpNoDelay(true);
        in = socket.getInputStream();
      }
      socket.getOutputStream().write(req.toBytes());
      Reply r = read(req.method().equals("HEAD"));
      String connection = r.header("connection");
      boolean stream = String.valueOf(r.header("content-type")).startsWith("text/event-stream");
      if (stream || (connection != null && connection.equalsIgnoreCase("close"))) {
        close();
      }
      return r;
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("no answer to " + req, e);
    }
  }

  private Reply read(boolean head) throws IOException {
    String statusLine = line();
    int status = Integer.parseInt(statusLine.substring(9, 12));
    Map<String, String> headers = new HashMap<>();
    for (String h = line(); !h.isEmpty(); h = line()) {
      int colon = h.indexOf(':');
      headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1)
          .trim());
    }
    if (head || status == 204 || status == 304
        || String.valueOf(headers.get("content-type")).startsWith("text/event-stream")) {
      return new Reply(status, headers, new byte[0]);
    }
    String length = headers.get("content-length");
    if (length != null) {
      return new Reply(status, headers, in.readNBytes(Integer.parseInt(length)));
    }
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      for (int n = Integer.parseInt(line().trim(), 16); n > 0;
          n = Integer.parseInt(line().trim(), 16)) {
        body.writeBytes(in.readNBytes(n));
        line();
      }
      String trailer = line();
      while (!trailer.isEmpty()) {
        trailer = line();
      }
      return new Reply(status, headers, body.toByteArray());
    }
    return new Reply(status, headers, in.readAllBytes());
  }

  private String line() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed mid-answer");
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing a socket the test is done with
      }
      socket = null;
    }
  }
}
