package dev.wharf.bench;

/**
 * A multiplexed publisher: sends the same publish again once its answer is in, and only when the
 * backlog has room (it never blocks the selector thread). With a bound of 0 it publishes flat out.
 */
final class MuxPublisher implements MuxClients.Conversation {
  private final Phase phase;
  private final MuxClients.Request publish;
  private final int perRequest;
  private final Backlog backlog;
  private final Tally tally;
  private boolean holdingRoom;

  MuxPublisher(Phase phase, MuxClients.Request publish, int perRequest, Backlog backlog,
      Tally tally) {
    this.phase = phase;
    this.publish = publish;
    this.perRequest = perRequest;
    this.backlog = backlog;
    this.tally = tally;
  }

  @Override
  public MuxClients.Request next() {
    if (!backlog.tryTake(perRequest)) {
      return null;
    }
    holdingRoom = true;
    return publish;
  }

  @Override
  public void answered(MuxClients.Request sent, long startedNs, long endedNs, int status,
      byte[] body) {
    holdingRoom = false;
    if (status < 200 || status > 299) {
      backlog.unused(perRequest);
      tally.error("http " + status);
    } else if (phase.measuring(startedNs)) {
      tally.ok(startedNs, endedNs, perRequest);
    }
  }

  @Override
  public void failed(String kind) {
    tally.error(kind);
    if (holdingRoom) {
      // it may or may not have landed; room is what the bound is about, not exact counts
      backlog.unused(perRequest);
      holdingRoom = false;
    }
  }
}
