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
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.util.Locale;

/**
 * How the event loops drive their sockets ({@code server.transport}).
 *
 * <p>io_uring hands the kernel the reads and writes of many connections in one system call, where
 * epoll makes one call for each read and each write. On the 2-core VMs of docs/benchmarks.md, where
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

  /** What the server is built from once a transport is chosen. */
  record Chosen(Transport transport, IoHandlerFactory io, Class<? extends ServerChannel> channel) {}

  /**
   * The transport to use: this one, or for {@link #AUTO} the first available of io_uring, epoll
   * and NIO.
   *
   * @throws Unavailable when this names a transport the machine does not offer
   */
  Chosen choose() {
    return switch (this) {
      case AUTO ->
          IoUring.isAvailable()
              ? IO_URING.choose()
              : Epoll.isAvailable() ? EPOLL.choose() : NIO.choose();
      case IO_URING -> {
        require(IoUring.isAvailable(), IoUring.unavailabilityCause());
        yield new Chosen(this, IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class);
      }
      case EPOLL -> {
        require(Epoll.isAvailable(), Epoll.unavailabilityCause());
        yield new Chosen(this, EpollIoHandler.newFactory(), EpollServerSocketChannel.class);
      }
      case NIO -> new Chosen(this, NioIoHandler.newFactory(), NioServerSocketChannel.class);
    };
  }

  private void require(boolean available, Throwable cause) {
    if (!available) {
      throw new Unavailable(
          configName()
              + " is not available here"
              + (cause == null ? "" : " (" + cause.getMessage() + ")")
              + "; set server.transport to auto to use what is",
          cause);
    }
  }
}
