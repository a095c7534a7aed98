package dev.wharf.http.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * Whether a client has stopped reading what it is owed, judged once a quiet period by whether
 * those bytes moved since the last one. A client that stops reading an answer (a stream, a large
 * batch) holds what the answer holds until it reads or leaves. Event loop only.
 */
final class StalledOutput {
  /** What the client was owed at the last idle tick: see {@link #stalled(Channel)}. */
  private long owedAtLastTick;
  private int firstAtLastTick;
  private long progressAtLastTick;

  /** A new answer is under way: what was owed at the last tick says nothing of it. */
  void reset() {
    owedAtLastTick = 0;
  }

  /**
   * Whether bytes owed to the client have not moved since the last idle tick: the same write
   * first in line, as far along, with as much behind it, a whole period later. A slow reader moves
   * some of them each period; a long-poll that waits owes nothing.
   */
  boolean stalled(Channel channel) {
    ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
    long owed = out == null ? 0 : out.totalPendingWriteBytes();
    if (owed == 0) {
      owedAtLastTick = 0;
      return false;
    }
    // Its identity only: holding the write itself would keep its bytes after they are gone.
    int first = System.identityHashCode(out.current());
    long progress = out.currentProgress();
    boolean stalled =
        owed == owedAtLastTick && first == firstAtLastTick && progress == progressAtLastTick;
    owedAtLastTick = owed;
    firstAtLastTick = first;
    progressAtLastTick = progress;
    return stalled;
  }
}
