package dev.wharf.loopback;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One keep-alive HTTP/1.1 connection to a loopback server, cheap enough that the load generator
 * does not eat the CPU it shares with the server: requests are written in one go, responses are
 * read through one reusable buffer, and only the status line, Content-Length, chunked encoding and
 * Connection: close are understood. Not thread-safe: one per virtual-thread client.
 */
public final class MiniHttp implements HttpConn {
  private static final int TIMEOUT_MS = 60_000;
  private final int port;
  private final String extraHeaders;
  private final int bufferSize;
  private byte[] buf;
  private int pos;
  private int limit;
  // volatile: another thread may close the connection to end a blocked read
  private volatile Socket socket;
  private InputStream in;
  private OutputStream out;

  /** @param token bearer token sent with every request, or null */
  public MiniHttp(int port, String token) {
    this(port, token, 64 * 1024);
  }

  /** @param bufferSize read buffer; small for the thousands of idle long-polls */
  public MiniHttp(int port, String token, int bufferSize) {
    this.port = port;
    this.extraHeaders = headersFor(token);
    this.bufferSize = bufferSize;
  }

  @Override
  public Response send(String method, String path, byte[] body) throws IOException {
    write(method, path, body);
    return read();
  }

  /** Sends a request without waiting for the answer; {@link #read()} gets it. */
  public void write(String method, String path, byte[] body) throws IOException {
    if (socket == null) {
      connect();
    }
    try {
      writeRequest(method, path, body);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Reads the answer to the request last written. */
  public Response read() throws IOException {
    try {
      return readResponse();
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Opens the connection now, so callers can count connects apart from requests. */
  public void connect() throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.setSoTimeout(TIMEOUT_MS);
      s.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MS);
    } catch (IOException e) {
      s.close();
      throw e;
    }
    socket = s;
    if (buf == null) {
      buf = new byte[bufferSize];
    }
    in = s.getInputStream();
    out = s.getOutputStream();
    pos = 0;
    limit = 0;
  }

  @Override
  public void close() {
    Socket s = socket;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing a socket we are giving up on; nothing to do
      }
      socket = null;
    }
  }

  private void writeRequest(String method, String path, byte[] body) throws IOException {
    // One write (one segment) per request: with TCP_NODELAY two writes would be two packets.
    out.write(build(port, extraHeaders, method, path, body));
    out.flush();
  }

  /** A whole request, head and body in one array. */
  public static byte[] request(int port, String token, String method, String path, byte[] body) {
    return build(port, headersFor(token), method, path, body);
  }

  private static String headersFor(String token) {
    return token == null ? "" : "Authorization: Bearer " + token + "\r\n";
  }

  private static byte[] build(
      int port, String extraHeaders, String method, String path, byte[] body) {
    int length = body == null ? 0 : body.length;
    String head =
        method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + extraHeaders
            + (body == null ? "" : "Content-Type: application/json\r\n")
            + "Content-Length: " + length + "\r\n\r\n";
    byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
    byte[] all = new byte[headBytes.length + length];
    System.arraycopy(headBytes, 0, all, 0, headBytes.length);
    if (length > 0) {
      System.arraycopy(body, 0, all, headBytes.length, length);
    }
    return all;
  }

  private Response readResponse() throws IOException {
    String statusLine = readLine();
    if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
      throw new IOException("not an HTTP response: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    long contentLength = -1;
    boolean chunked = false;
    boolean closeAfter = false;
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = line.substring(0, colon).trim();
      String value = line.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("Content-Length")) {
        contentLength = Long.parseLong(value);
      } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
        chunked = value.toLowerCase().contains("chunked");
      } else if (name.equalsIgnoreCase("Connection")) {
        closeAfter = value.equalsIgnoreCase("close");
      }
    }
    byte[] body;
    if (status == 204 || status == 304 || status < 200) {
      body = new byte[0]; // never has a body, whatever the headers say
    } else if (chunked) {
      body = readChunked();
    } else if (contentLength >= 0) {
      body = readExactly((int) contentLength);
    } else {
      // No length and not chunked: the body runs to the end of the connection.
      body = readToEnd();
      closeAfter = true;
    }
    if (closeAfter) {
      close();
    }
    return new Response(status, body);
  }

  private byte[] readChunked() throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine();
      int semi = sizeLine.indexOf(';');
      int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
      if (size == 0) {
        while (!readLine().isEmpty()) {
          // trailers are ignored
        }
        return all.toByteArray();
      }
      all.writeBytes(readExactly(size));
      readLine();
    }
  }

  private byte[] readExactly(int n) throws IOException {
    byte[] body = new byte[n];
    int done = 0;
    while (done < n) {
      if (pos == limit) {
        fill();
      }
      int take = Math.min(n - done, limit - pos);
      System.arraycopy(buf, pos, body, done, take);
      pos += take;
      done += take;
    }
    return body;
  }

  private byte[] readToEnd() throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    all.write(buf, pos, limit - pos);
    pos = limit;
    in.transferTo(all);
    return all.toByteArray();
  }

  private String readLine() throws IOException {
    StringBuilder line = new StringBuilder(64);
    while (true) {
      if (pos == limit) {
        fill();
      }
      byte b = buf[pos++];
      if (b == '\n') {
        int len = line.length();
        if (len > 0 && line.charAt(len - 1) == '\r') {
          line.setLength(len - 1);
        }
        return line.toString();
      }
      if (line.length() > 16 * 1024) {
        throw new IOException("header line too long");
      }
      line.append((char) (b & 0xff));
    }
  }

  private void fill() throws IOException {
    int n = in.read(buf, 0, buf.length);
    if (n <= 0) {
      throw new EOFException("connection closed by the server");
    }
    pos = 0;
    limit = n;
  }
}
