package dev.wharf.http.server;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * How the event loops drive their sockets ({@code server.transport}).
 *
 * <p>io_uring hands the kernel the reads and writes of many connections in one system call, where
 * epoll makes one call for each read and each write. On 2-core VMs (docs/benchmark-log.md), where
 * a system call is dear, that served ~10% more single publishes with less CPU. Many containers and
 * kernels forbid io_uring (a seccomp profile, {@code kernel.io_uring_disabled}), so {@link #AUTO}
 * falls back to epoll, and off Linux to NIO.
 */
public enum Transport {
  AUTO,
  IO_URING,
  EPOLL,
  NIO;

  /** The name in the config file. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The transport a config name names, or null. */
  public static Transport fromConfig(String name) {
    for (Transport t : values()) {
      if (t.configName().equals(name)) {
        return t;
      }
    }
    return null;
  }

  /** A transport that is not available here, and why. */
  public static final class Unavailable extends RuntimeException {
    Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * What the server is built from once a transport is chosen; the factory is made only by a server
   * that starts, since making one loads the transport's native code.
   */
  record Chosen(
      Transport transport,
      Supplier<IoHandlerFactory> io,
      Class<? extends ServerChannel> channel) {}

  /** Which native transports this machine offers: for each, null or why not. */
  interface Natives {
    Throwable ioUringMissing();

    Throwable epollMissing();

    /** What Netty finds on this machine. */
    Natives HERE =
        new Natives() {
          @Override
          public Throwable ioUringMissing() {
            return IoUring.isAvailable() ? null : why(IoUring.unavailabilityCause());
          }

          @Override
          public Throwable epollMissing() {
            return Epoll.isAvailable() ? null : why(Epoll.unavailabilityCause());
          }

          private static Throwable why(Throwable cause) {
            return cause != null ? cause : new UnsupportedOperationException("not offered");
          }
        };
  }

  /**
   * The transport to use: this one, or for {@link #AUTO} the first available of io_uring, epoll
   * and NIO.
   *
   * @throws Unavailable when this names a transport the machine does not offer
   */
  Chosen choose() {
    return choose(Natives.HERE);
  }

  Chosen choose(Natives natives) {
    return switch (this) {
      case AUTO ->
          natives.ioUringMissing() == null
              ? IO_URING.choose(natives)
              : natives.epollMissing() == null ? EPOLL.choose(natives) : NIO.choose(natives);
      case IO_URING -> {
        require(natives.ioUringMissing());
        yield new Chosen(this, Transport::ioUring, IoUringServerSocketChannel.class);
      }
      case EPOLL -> {
        require(natives.epollMissing());
        yield new Chosen(this, EpollIoHandler::newFactory, EpollServerSocketChannel.class);
      }
      case NIO -> new Chosen(this, NioIoHandler::newFactory, NioServerSocketChannel.class);
    };
  }

  /**
   * Completions the kernel can queue for an event loop before it reaps them. Netty's 4,096
   * overflowed when 10,000 long-polls connected within 1.4-2.5 s (in three rounds of five): the
   * kernel then keeps the rest aside, and Netty logs a warning each time. 32,768 entries of 16
   * bytes are 512 KB a loop.
   */
  static final int COMPLETION_QUEUE = 32_768;

  private static IoHandlerFactory ioUring() {
    return IoUringIoHandler.newFactory(new IoUringIoHandlerConfig().setCqSize(COMPLETION_QUEUE));
  }

  private void require(Throwable missing) {
    if (missing != null) {
      throw new Unavailable(
          configName()
              + " is not available here ("
              + missing.getMessage()
              + "); set server.transport to auto to use what is",
          missing);
    }
  }
}
