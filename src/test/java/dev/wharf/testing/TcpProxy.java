package dev.wharf.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A TCP relay on an ephemeral loopback port, for a database outage without touching the database:
 * {@link #cut} ends every relayed connection and answers new ones by closing them at once (as a
 * server that went away and a port nothing serves do), {@link #restore} relays again. The port
 * stays bound throughout, so nothing else can take it meanwhile.
 *
 * <p>{@link #freeze} is the other kind of outage: a database that stops answering (a hung server,
 * or a proxy that keeps connections open and stops forwarding). Every socket stays open and new
 * connections are still accepted, but no byte moves either way until {@link #thaw}, which moves
 * on what waited, in order. Both ends' kernels still acknowledge what is sent, so TCP keepalives
 * see a live peer, as they do in front of a stalled server.
 *
 * <p>{@link #freezeInNextReply} freezes in the middle of what the server sends next: its first
 * byte gets through, the rest waits for {@link #thaw}. {@link #freezeAtStatement} freezes when
 * a client sends a given statement, letting through what came before (a login, say). {@link
 * #freezeAfterStatement} lets that statement through and freezes before its answer: the server
 * runs it, and then waits for a client that sends nothing more, as one stopped with SIGSTOP.
 */
public final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean cut;
  private final ReentrantLock frozenLock = new ReentrantLock();
  private final Condition thawed = frozenLock.newCondition();
  private boolean frozen;
  private final AtomicBoolean splitNextReply = new AtomicBoolean();
  private final AtomicReference<String> freezeAt = new AtomicReference<>();
  private final AtomicReference<String> freezeAfter = new AtomicReference<>();
  private volatile boolean closed;

  public TcpProxy(String targetHost, int targetPort) {
    this.target = new InetSocketAddress(targetHost, targetPort);
    try {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    acceptor = Thread.ofPlatform().name("tcp-proxy-accept").daemon().start(this::acceptLoop);
  }

  public int port() {
    return server.getLocalPort();
  }

  /** The outage starts: relayed connections end, and new ones are closed as they come. */
  public void cut() {
    cut = true;
    for (Socket s : open) {
      closeQuietly(s);
    }
  }

  /** The outage ends: new connections are relayed again. */
  public void restore() {
    cut = false;
  }

  /** The stall starts: no byte is relayed, either way, on any connection, old or new. */
  public void freeze() {
    frozenLock.lock();
    try {
      frozen = true;
    } finally {
      frozenLock.unlock();
    }
  }

  /**
   * The stall starts in the middle of the server's next bytes, on whichever connection it sends
   * them: the first is relayed, then nothing either way until {@link #thaw}.
   */
  public void freezeInNextReply() {
    splitNextReply.set(true);
  }

  /**
   * The stall starts when a client next sends a statement (a simple query or a parse, in the
   * PostgreSQL protocol) whose text holds {@code text}: it is held with all that follows.
   */
  public void freezeAtStatement(String text) {
    freezeAt.set(text);
  }

  /**
   * The stall starts once a client has sent a statement whose text holds {@code text}, anywhere
   * in what it sent at once (a statement the driver named earlier is sent without its text, so
   * pick one new to the connection): the statement is relayed, and nothing after it, its answer
   * included, until {@link #thaw}.
   */
  public void freezeAfterStatement(String text) {
    freezeAfter.set(text);
  }

  /** The stall ends: what waited is relayed, and everything after it. */
  public void thaw() {
    frozenLock.lock();
    try {
      frozen = false;
      thawed.signalAll();
    } finally {
      frozenLock.unlock();
    }
  }

  private void awaitThaw() throws IOException {
    frozenLock.lock();
    try {
      while (frozen && !closed) {
        thawed.await();
      }
    } catch (InterruptedException e) {
      throw new IOException("interrupted while frozen", e);
    } finally {
      frozenLock.unlock();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      if (cut) {
        closeQuietly(client);
        continue;
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(target, 2000);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(upstream);
        continue;
      }
      open.add(client);
      open.add(upstream);
      if (cut) {
        // Cut while this one connected: it must not outlive the cut.
        closeQuietly(client);
        closeQuietly(upstream);
      }
      pump(client, upstream, false);
      pump(upstream, client, true);
    }
  }

  private void pump(Socket from, Socket to, boolean fromServer) {
    Thread.ofVirtual().start(() -> {
      byte[] buf = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while (true) {
          awaitThaw();
          n = in.read(buf);
          // Read as the stall began: held until it ends, as a stalled peer would hold it.
          awaitThaw();
          if (n < 0) {
            break;
          }
          String at = freezeAt.get();
          if (!fromServer && at != null && n > 0 && (buf[0] == 'Q' || buf[0] == 'P')
              && new String(buf, 0, n, StandardCharsets.ISO_8859_1).contains(at)
              && freezeAt.compareAndSet(at, null)) {
            freeze();
            awaitThaw();
          }
          String after = freezeAfter.get();
          if (!fromServer && after != null && n > 0
              && new String(buf, 0, n, StandardCharsets.ISO_8859_1).contains(after)
              && freezeAfter.compareAndSet(after, null)) {
            // Frozen before the statement goes on, so that its answer cannot slip through.
            freeze();
          }
          if (fromServer && n > 1 && splitNextReply.compareAndSet(true, false)) {
            out.write(buf, 0, 1);
            out.flush();
            freeze();
            awaitThaw();
            out.write(buf, 1, n - 1);
            continue;
          }
          out.write(buf, 0, n);
        }
      } catch (IOException ignored) {
        // One side ended: both end.
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    });
  }

  private void closeQuietly(Socket s) {
    open.remove(s);
    try {
      s.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    closed = true;
    thaw();
    try {
      server.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    cut();
    try {
      acceptor.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
