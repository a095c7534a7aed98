package dev.wharf.bench;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * N keep-alive connections driven by one thread through a selector, each with one request in
 * flight and the next sent as soon as its answer is read: the load of N blocking clients without
 * N threads. On two cores shared with the server, a thread per client means a wake-up per answer;
 * the server answers a group commit's requests together, and one selector wake-up reads them all.
 * Answers must carry a Content-Length (Wharf's publish answers do); anything else counts as an
 * error and the connection is reopened.
 */
final class MuxClients {
  private static final int READ_BUFFER = 64 * 1024;
  private static final long FIRST_BACKOFF_MS = 20;
  private static final long MAX_BACKOFF_MS = 320;

  private final InetSocketAddress address;
  private final Phase phase;
  private final byte[] request;
  private final int perRequest;
  private final Tally tally = new Tally();

  private MuxClients(int port, Phase phase, byte[] request, int perRequest) {
    this.address = new InetSocketAddress("127.0.0.1", port);
    this.phase = phase;
    this.request = request;
    this.perRequest = perRequest;
  }

  /** Posts {@code body} to {@code path} on {@code clients} connections until the phase ends. */
  static Tally post(
      int port, String token, int clients, Phase phase, String path, byte[] body, int perRequest)
      throws IOException {
    byte[] request = MiniHttp.request(port, token, "POST", path, body);
    return new MuxClients(port, phase, request, perRequest).run(clients);
  }

  /** One connection's state. */
  private static final class Conn {
    SocketChannel channel;
    SelectionKey key;
    ByteBuffer out;
    final ByteBuffer in = ByteBuffer.allocate(READ_BUFFER);
    long startedNs;
    long reopenAtNs;
    long backoffMs = FIRST_BACKOFF_MS;
  }

  private Tally run(int clients) throws IOException {
    List<Conn> conns = new ArrayList<>(clients);
    try (Selector selector = Selector.open()) {
      for (int i = 0; i < clients; i++) {
        Conn c = new Conn();
        conns.add(c);
        open(selector, c);
      }
      while (phase.running()) {
        long now = System.nanoTime();
        for (Conn c : conns) {
          if (c.channel == null && now >= c.reopenAtNs) {
            open(selector, c);
          }
        }
        selector.select(50);
        for (SelectionKey key : selector.selectedKeys()) {
          Conn c = (Conn) key.attachment();
          try {
            if (!key.isValid()) {
              continue;
            } else if (key.isConnectable()) {
              c.channel.finishConnect();
              send(c);
            } else if (key.isWritable()) {
              write(c);
            } else if (key.isReadable()) {
              read(c);
            }
          } catch (IOException | RuntimeException e) {
            fail(c, e);
          }
        }
        selector.selectedKeys().clear();
      }
    } finally {
      for (Conn c : conns) {
        closeQuietly(c);
      }
    }
    return tally;
  }

  private void open(Selector selector, Conn c) {
    try {
      SocketChannel ch = SocketChannel.open();
      c.channel = ch;
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      c.in.clear();
      if (ch.connect(address)) {
        c.key = ch.register(selector, 0, c);
        send(c);
      } else {
        c.key = ch.register(selector, SelectionKey.OP_CONNECT, c);
      }
    } catch (IOException | RuntimeException e) {
      fail(c, e);
    }
  }

  private void send(Conn c) throws IOException {
    c.out = ByteBuffer.wrap(request);
    c.startedNs = System.nanoTime();
    write(c);
  }

  private void write(Conn c) throws IOException {
    c.channel.write(c.out);
    c.key.interestOps(c.out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
  }

  private void read(Conn c) throws IOException {
    if (c.channel.read(c.in) < 0) {
      throw new EOFException("connection closed by the server");
    }
    int status = complete(c.in);
    if (status == 0) {
      if (!c.in.hasRemaining()) {
        throw new IOException("answer larger than " + READ_BUFFER + " bytes");
      }
      return;
    }
    long ended = System.nanoTime();
    c.backoffMs = FIRST_BACKOFF_MS;
    if (status < 200 || status > 299) {
      tally.error("http " + status);
    } else if (phase.measuring(c.startedNs)) {
      tally.ok(c.startedNs, ended, perRequest);
    }
    if (phase.running()) {
      send(c);
    }
  }

  /**
   * The status of the answer in {@code in} once all of it has arrived (and clears the buffer), or
   * 0 while more is to come.
   */
  private static int complete(ByteBuffer in) throws IOException {
    byte[] a = in.array();
    int n = in.position();
    int headEnd = -1;
    for (int i = 3; i < n; i++) {
      if (a[i] == '\n' && a[i - 1] == '\r' && a[i - 2] == '\n' && a[i - 3] == '\r') {
        headEnd = i + 1;
        break;
      }
    }
    if (headEnd < 0) {
      return 0;
    }
    String head = new String(a, 0, headEnd, StandardCharsets.US_ASCII);
    if (!head.startsWith("HTTP/1.") || head.length() < 12) {
      throw new IOException("not an HTTP response");
    }
    int status = Integer.parseInt(head.substring(9, 12));
    long length = -1;
    for (String line : head.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT)
          .equals("content-length")) {
        length = Long.parseLong(line.substring(colon + 1).trim());
      }
    }
    if (length < 0) {
      throw new IOException("an answer without Content-Length");
    }
    if (n < headEnd + length) {
      return 0;
    }
    if (n > headEnd + length) {
      throw new IOException("bytes after the answer to the only request in flight");
    }
    in.clear();
    return status;
  }

  private void fail(Conn c, Exception e) {
    tally.error("io " + e.getClass().getSimpleName());
    closeQuietly(c);
    // A refused connection fails fast: back off as the blocking clients do (Workers).
    c.reopenAtNs = System.nanoTime() + c.backoffMs * 1_000_000L;
    c.backoffMs = Math.min(c.backoffMs * 2, MAX_BACKOFF_MS);
  }

  private static void closeQuietly(Conn c) {
    if (c.channel != null) {
      try {
        c.channel.close();
      } catch (IOException ignored) {
        // giving the connection up anyway
      }
      c.channel = null;
    }
  }
}
