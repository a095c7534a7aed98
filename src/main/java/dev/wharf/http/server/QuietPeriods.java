package dev.wharf.http.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * When bytes last came to a connection, and what a quiet period since means for it: a request
 * begun and not finished is late, a connection with none under way is idle. Sits before the HTTP
 * codec, so it hears of bytes that do not make a whole request yet. Event loop only.
 */
final class QuietPeriods extends ChannelInboundHandlerAdapter {
  private final int idleTicks;
  // Bytes came that do not make a whole request yet; quiet periods since the last bytes.
  private boolean partial;
  private int periods;
  // A 100 Continue went out late, once the answers before it had: quiet periods count from the
  // last bytes read, the headers, so the one under way may end just after it. That end is not
  // held against the client, which so has at least a whole period to start its body. Cleared
  // when bytes come.
  private boolean continuedLate;

  /** @param idleTicks how many quiet periods in a row make a connection idle */
  QuietPeriods(int idleTicks) {
    this.idleTicks = idleTicks;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    partial = true;
    periods = 0;
    continuedLate = false;
    ctx.fireChannelRead(msg);
  }

  /** Whether bytes came that do not make a whole request yet. */
  boolean partial() {
    return partial;
  }

  /** The request the bytes began is read whole, or dropped. */
  void requestEnded() {
    partial = false;
  }

  /** A 100 Continue owed went out late: see {@link #requestLate()}. */
  void continuedLate() {
    continuedLate = true;
  }

  /**
   * A quiet period passed with a request begun and not finished: whether it is late. It is not
   * when a 100 Continue went out late in that period: the client may have had its last moment to
   * start its body, and gets one more period.
   */
  boolean requestLate() {
    if (continuedLate) {
      continuedLate = false;
      return false;
    }
    return true;
  }

  /** A quiet period passed with no request under way: whether the connection is idle now. */
  boolean idle() {
    return ++periods >= idleTicks;
  }
}
