package dev.wharf.http.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection after its last answer without losing that answer to a reset. A socket
 * closed with bytes unread, or one that bytes reach after it closed, makes the kernel send RST,
 * and a client still sending (a body refused unread, requests pipelined behind a refusal) may then
 * fail its write or lose the answer it has not read yet. So only the sending side is shut, which
 * the client reads as the end of the answer, and what still comes is read and dropped until the
 * client closes too, within {@link #MAX_MILLIS} and {@link #MAX_BYTES}, so that no client can hold
 * the connection open by sending on.
 */
final class LingeringClose extends ChannelInboundHandlerAdapter {
  /** How long a client has to read the answer and close, whatever it sends meanwhile. */
  static final long MAX_MILLIS = 2_000;
  /**
   * How much is read and dropped before the connection closes anyway: enough for the rest of a
   * body some times over {@code server.max_body} that a client sends before it reads.
   */
  static final long MAX_BYTES = 16L << 20;

  /** Once the write it listens to is done: see {@link #start(Channel)}. */
  static final ChannelFutureListener AFTER_WRITE = f -> start(f.channel());

  private long left = MAX_BYTES;

  private LingeringClose() {}

  /**
   * On the event loop, once the last answer is written: shuts the sending side and drops what
   * the client still sends until it closes, or closes at once when nothing more can come.
   */
  static void start(Channel ch) {
    if (!ch.isActive()) {
      return;
    }
    if (!(ch instanceof DuplexChannel duplex) || duplex.isInputShutdown()) {
      ch.close();
      return;
    }
    if (ch.pipeline().get(LingeringClose.class) != null) {
      return;
    }
    // First in the pipeline: no byte read from now on reaches the HTTP codec.
    ch.pipeline().addFirst(new LingeringClose());
    ScheduledFuture<?> bound =
        ch.eventLoop().schedule(() -> ch.close(), MAX_MILLIS, TimeUnit.MILLISECONDS);
    ch.closeFuture().addListener(f -> bound.cancel(false));
    duplex
        .shutdownOutput()
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                ch.close();
              }
            });
    // A connection that stopped reading to keep requests in order reads again, to drop them.
    ch.config().setAutoRead(true);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf bytes) {
      left -= bytes.readableBytes();
    }
    ReferenceCountUtil.release(msg);
    if (left <= 0) {
      ctx.close();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      // The client closed (or shut its side) having read what it wanted: nothing is lost now.
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }
}
