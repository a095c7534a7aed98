package dev.wharf.http.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The HTTP/1.1 server: Netty event loops read and write, each request's handler runs on a virtual
 * thread. An idle connection costs its channel and codec state, a few KB, and no thread, which is
 * what lets thousands of consumers park on long-polls.
 *
 * @see Connection for how requests on one connection are ordered
 */
public final class HttpServer implements AutoCloseable {
  private static final int MAX_INITIAL_LINE = 8 * 1024;
  private static final int MAX_HEADERS = 16 * 1024;
  /**
   * The codec's own bound on requests decoded and not yet answered. When it is reached the codec
   * throws and drops what it decoded, so requests already read, one of them maybe committed, would
   * go unanswered. {@link Connection} bounds this instead: it stops reading once a few requests
   * wait, so the codec holds at most those plus what one read had already brought.
   */
  private static final int UNBOUNDED_PIPELINE = Integer.MAX_VALUE;

  /**
   * How long a stop waits for the connections to finish the answers under way and close, before
   * it closes the rest.
   */
  static final long STOP_WAIT_MS = 5_000;

  private final EventLoopGroup group;
  private final Transport transport;
  private final Channel listener;
  private final ChannelGroup open;
  private final BodyBudget bodies;
  private final ConnectionCap connections;
  /** Set when the server stops: each connection closes once it owes no answer. */
  private final AtomicBoolean stopping;
  private final AtomicBoolean accepting = new AtomicBoolean(true);
  private final AtomicBoolean closed = new AtomicBoolean();

  private HttpServer(
      EventLoopGroup group,
      Channel listener,
      ChannelGroup open,
      Transport transport,
      BodyBudget bodies,
      ConnectionCap connections,
      AtomicBoolean stopping) {
    this.stopping = stopping;
    this.transport = transport;
    this.connections = connections;
    this.group = group;
    this.listener = listener;
    this.open = open;
    this.bodies = bodies;
  }

  /**
   * What a client may take.
   *
   * @param maxBody largest request body read; a larger one reaches the handler with {@link
   *     Request#bodyTooLarge()} set and the connection closes after its answer
   * @param bodyMemory request-body bytes held at once across all connections; a body that does
   *     not fit is answered 503 {@code server_busy} unread and its connection closes
   * @param stalled longest silence while a request is being sent (then 408 and close)
   * @param idle longest a connection with no request under way stays open
   * @param maxConnections connections open at once; at it the server stops accepting until one
   *     closes (lowered to what the process's file-descriptor limit leaves room for)
   */
  public record Limits(
      long maxBody, long bodyMemory, Duration stalled, Duration idle, int maxConnections) {
    public Limits {
      if (maxConnections < 1) {
        throw new IllegalArgumentException("need maxConnections >= 1");
      }
      if (stalled.isNegative() || stalled.isZero() || idle.compareTo(stalled) < 0) {
        throw new IllegalArgumentException("need 0 < stalled <= idle");
      }
      if (bodyMemory < maxBody) {
        throw new IllegalArgumentException("need maxBody <= bodyMemory");
      }
    }
  }

  /**
   * Loads the transport's native library and the classes a start needs, so that a caller can do
   * it on another core while it opens the database: on a restart both take a few tenths of a
   * second.
   */
  public static void preload() {
    Transport.AUTO.choose().io().get();
    new HttpServerCodec(new HttpDecoderConfig());
    new ServerBootstrap();
    new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  }

  /**
   * Netty's leak detector records a stack trace for a sample of the buffers it tracks: ~2% of the
   * event loop's CPU under single-message publishes (a profile). It is a tool for finding leaks,
   * so it runs only where its system property asks for it, as the test build does.
   */
  private static void quietLeakDetector() {
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
  }

  /**
   * Binds and starts serving.
   *
   * @param eventLoops threads that move bytes (handlers run elsewhere)
   * @param transport how they drive their sockets
   * @throws Transport.Unavailable when {@code transport} names one the machine does not offer
   */
  public static HttpServer start(
      String host,
      int port,
      Handler handler,
      ErrorBody errors,
      Limits limits,
      int eventLoops,
      Transport transport)
      throws InterruptedException {
    quietLeakDetector();
    long stalledMs = limits.stalled().toMillis();
    int idleTicks = (int) Math.max(1, (limits.idle().toMillis() + stalledMs - 1) / stalledMs);
    Transport.Chosen chosen = transport.choose();
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(eventLoops, chosen.io().get());
    ChannelGroup open = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    BodyBudget bodies = new BodyBudget(limits.bodyMemory());
    ConnectionCap connections =
        new ConnectionCap(FileDescriptors.roomFor(limits.maxConnections()), errors);
    AtomicBoolean stopping = new AtomicBoolean();
    HttpDecoderConfig decoding =
        new HttpDecoderConfig()
            .setMaxInitialLineLength(MAX_INITIAL_LINE)
            .setMaxHeaderSize(MAX_HEADERS);
    try {
      Channel listener =
          new ServerBootstrap()
              .group(group)
              .channel(chosen.channel())
              .option(ChannelOption.SO_BACKLOG, 4096)
              .option(ChannelOption.SO_REUSEADDR, true)
              // Without TCP_NODELAY an answer written in more than one segment waits for the
              // client's delayed ACK: ~40 ms a request on keep-alive connections (measured).
              .childOption(ChannelOption.TCP_NODELAY, true)
              // A client may shut its side once it has sent its requests (nc -N does): it still
              // reads their answers. Without this the channel closed on the end of its input.
              .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      open.add(ch);
                      if (stopping.get()) {
                        // Accepted just before the listener closed: nothing was asked of it yet.
                        ch.close();
                        return;
                      }
                      if (!connections.admit(ch)) {
                        return;
                      }
                      Connection connection =
                          new Connection(
                              handler, errors, limits.maxBody(), bodies, idleTicks, stopping);
                      ch.pipeline()
                          .addLast(new IdleStateHandler(stalledMs, 0, 0, TimeUnit.MILLISECONDS))
                          .addLast(connection.quietPeriods())
                          .addLast(new HttpServerCodec(decoding, UNBOUNDED_PIPELINE))
                          .addLast(connection);
                    }
                  })
              .bind(new InetSocketAddress(host, port))
              .sync()
              .channel();
      connections.listening(listener);
      return new HttpServer(
          group, listener, open, chosen.transport(), bodies, connections, stopping);
    } catch (InterruptedException | RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw e;
    } catch (Exception e) {
      // Netty rethrows the bind's IOException undeclared.
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new CannotBind(host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /** The address is in use or not available. */
  public static final class CannotBind extends RuntimeException {
    CannotBind(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The transport in use: never {@link Transport#AUTO}. */
  public Transport transport() {
    return transport;
  }

  public int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  /** Request-body bytes held now, of {@link Limits#bodyMemory()}. */
  public long bodyBytesHeld() {
    return bodies.held();
  }

  /** Bodies refused so far because they did not fit in {@link Limits#bodyMemory()}. */
  public long bodiesRefused() {
    return bodies.refused();
  }

  /** Connections open now. */
  public int connectionsOpen() {
    return connections.open();
  }

  /** The connection cap in force: {@link Limits#maxConnections()} or less (see there). */
  public int maxConnections() {
    return connections.limit();
  }

  /** Connections answered 503 because they came past the cap before accepting paused. */
  public long connectionsRefused() {
    return connections.refused();
  }

  /** Times accepting paused because the cap was reached. */
  public long acceptPauses() {
    return connections.pauses();
  }

  /**
   * Closes the listening socket: no new connection is accepted, and each open one closes after
   * its next answer, which says so ({@code Connection: close}). The first step of {@link
   * #close()}, for a caller that ends waits of its own before the rest.
   */
  public void stopAccepting() {
    if (accepting.compareAndSet(true, false)) {
      listener.close().syncUninterruptibly();
      stopping.set(true);
    }
  }

  /**
   * Stops: accepts no more connections, closes those with no request under way at once and every
   * other once its answer is written (that answer says {@code Connection: close}), waits up to
   * {@link #STOP_WAIT_MS} for them, closes whatever is still open then, and stops the event loops.
   * A handler still writing after that finds its client gone.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    stopAccepting();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MS);
    for (Channel ch : open) {
      // On its event loop, where its pipeline is complete and its state is read safely.
      ch.eventLoop()
          .execute(
              () -> {
                Connection c = ch.pipeline().get(Connection.class);
                if (c != null) {
                  c.stop();
                }
                // else refused at the cap: its 503 is on the way, and it closes after.
              });
    }
    open.newCloseFuture()
        .awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    open.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
