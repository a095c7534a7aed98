package dev.wharf.bench;

import dev.wharf.loopback.MiniHttp;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Keep-alive connections driven by one thread through a selector, each with at most one request
 * in flight: the load of as many blocking clients without a thread each. On two cores shared with
 * the server, a thread per client means a wake-up per answer; the server answers a group commit's
 * requests together, and one selector wake-up reads them all. Each connection carries one
 * {@link Conversation}. Answers must carry a Content-Length (Wharf's do); anything else counts as
 * an error and the connection is reopened.
 */
final class MuxClients {
  private static final int FIRST_BUFFER = 16 * 1024;
  private static final int MAX_ANSWER = 8 * 1024 * 1024;
  private static final long FIRST_BACKOFF_MS = 20;
  private static final long MAX_BACKOFF_MS = 320;
  /** How long an idle connection waits before asking its conversation again. */
  private static final long IDLE_RECHECK_MS = 1;

  /** A POST to send. Return the same instance to send the same bytes again without rebuilding. */
  record Request(String path, byte[] body) {}

  /** What one connection sends, and what it makes of the answers. Called on the selector thread. */
  interface Conversation {
    /** The request to send now, or null when there is none yet (asked again shortly). */
    Request next();

    /** The answer to {@code sent}, which went out at {@code startedNs}. */
    void answered(Request sent, long startedNs, long endedNs, int status, byte[] body)
        throws IOException;

    /** A failed connection; the conversation starts over on a new one. */
    void failed(String kind);
  }

  private final InetSocketAddress address;
  private final int port;
  private final String token;
  private final Phase phase;
  /** Connected, nothing in flight. */
  private final ArrayDeque<Conn> idle = new ArrayDeque<>();

  private MuxClients(int port, String token, Phase phase) {
    this.address = new InetSocketAddress("127.0.0.1", port);
    this.port = port;
    this.token = token;
    this.phase = phase;
  }

  /**
   * Posts {@code body} to {@code path} on {@code clients} connections, each sending its next
   * request as soon as its answer is read, until the phase ends.
   */
  static Tally post(
      int port, String token, int clients, Phase phase, String path, byte[] body, int perRequest) {
    Request request = new Request(path, body);
    Tally tally = new Tally();
    List<Conversation> all = new ArrayList<>(clients);
    for (int i = 0; i < clients; i++) {
      all.add(new MuxPublisher(phase, request, perRequest, new Backlog(0), tally));
    }
    run(port, token, phase, all);
    return tally;
  }

  /** Runs every conversation on a connection of its own until the phase ends. */
  static void run(int port, String token, Phase phase, List<Conversation> conversations) {
    try {
      new MuxClients(port, token, phase).drive(conversations);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a selector", e);
    }
  }

  /** One connection's state. */
  private static final class Conn {
    final Conversation conversation;
    SocketChannel channel;
    SelectionKey key;
    ByteBuffer out;
    ByteBuffer in = ByteBuffer.allocate(FIRST_BUFFER);
    Request sent;
    byte[] sentBytes;
    long startedNs;
    long reopenAtNs;
    long backoffMs = FIRST_BACKOFF_MS;

    Conn(Conversation conversation) {
      this.conversation = conversation;
    }
  }

  private void drive(List<Conversation> conversations) throws IOException {
    List<Conn> conns = new ArrayList<>(conversations.size());
    try (Selector selector = Selector.open()) {
      for (Conversation c : conversations) {
        Conn conn = new Conn(c);
        conns.add(conn);
        open(selector, conn);
      }
      while (phase.running()) {
        long now = System.nanoTime();
        for (Conn c : conns) {
          if (c.channel == null && now >= c.reopenAtNs) {
            open(selector, c);
          }
        }
        sendFromIdle();
        selector.select(idle.isEmpty() ? 50 : IDLE_RECHECK_MS);
        handleSelected(selector);
      }
      // The answers to requests sent in the window still count: left unread, the slowest of
      // them would drop out of the figures. Nothing new is sent meanwhile.
      long drainUntil = System.nanoTime() + DRAIN_NS;
      while (anyAwaitingAnswer(conns) && System.nanoTime() < drainUntil) {
        selector.select(IDLE_RECHECK_MS);
        handleSelected(selector);
      }
    } finally {
      for (Conn c : conns) {
        closeQuietly(c);
      }
    }
  }

  /** How long answers to the requests in flight at the window's end are waited for. */
  private static final long DRAIN_NS = 5_000_000_000L;

  private void handleSelected(Selector selector) {
    for (SelectionKey key : selector.selectedKeys()) {
      Conn c = (Conn) key.attachment();
      try {
        if (!key.isValid()) {
          continue;
        } else if (key.isConnectable()) {
          c.channel.finishConnect();
          c.key.interestOps(0);
          sendOrIdle(c);
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

  /** Whether a request is being written or its answer read on some connection. */
  private static boolean anyAwaitingAnswer(List<Conn> conns) {
    for (Conn c : conns) {
      if (c.channel != null && c.key != null && c.key.isValid()
          && (c.key.interestOps() & (SelectionKey.OP_READ | SelectionKey.OP_WRITE)) != 0) {
        return true;
      }
    }
    return false;
  }

  private void sendFromIdle() {
    for (int n = idle.size(); n > 0; n--) {
      sendOrIdle(idle.poll());
    }
  }

  private void sendOrIdle(Conn c) {
    Request r = phase.running() ? c.conversation.next() : null;
    if (r == null) {
      idle.add(c);
      return;
    }
    try {
      if (r != c.sent || c.sentBytes == null) {
        c.sentBytes = MiniHttp.request(port, token, "POST", r.path(), r.body());
      }
      c.sent = r;
      c.out = ByteBuffer.wrap(c.sentBytes);
      c.startedNs = System.nanoTime();
      write(c);
    } catch (IOException | RuntimeException e) {
      fail(c, e);
    }
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
        sendOrIdle(c);
      } else {
        c.key = ch.register(selector, SelectionKey.OP_CONNECT, c);
      }
    } catch (IOException | RuntimeException e) {
      fail(c, e);
    }
  }

  private void write(Conn c) throws IOException {
    c.channel.write(c.out);
    c.key.interestOps(c.out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
  }

  private void read(Conn c) throws IOException {
    if (!c.in.hasRemaining()) {
      if (c.in.capacity() >= MAX_ANSWER) {
        throw new IOException("answer larger than " + MAX_ANSWER + " bytes");
      }
      c.in = ByteBuffer.allocate(c.in.capacity() * 2).put(c.in.flip());
    }
    if (c.channel.read(c.in) < 0) {
      throw new EOFException("connection closed by the server");
    }
    Answer a = complete(c.in);
    if (a == null) {
      return;
    }
    long ended = System.nanoTime();
    c.backoffMs = FIRST_BACKOFF_MS;
    c.key.interestOps(0);
    c.conversation.answered(c.sent, c.startedNs, ended, a.status(), a.body());
    sendOrIdle(c);
  }

  private record Answer(int status, byte[] body) {}

  /** The answer in {@code in} once all of it has arrived (and clears the buffer), else null. */
  private static Answer complete(ByteBuffer in) throws IOException {
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
      return null;
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
      return null;
    }
    if (n > headEnd + length) {
      throw new IOException("bytes after the answer to the only request in flight");
    }
    byte[] body = Arrays.copyOfRange(a, headEnd, n);
    in.clear();
    return new Answer(status, body);
  }

  private void fail(Conn c, Exception e) {
    c.conversation.failed("io " + e.getClass().getSimpleName());
    idle.remove(c);
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
