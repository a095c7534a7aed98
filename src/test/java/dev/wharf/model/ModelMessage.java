package dev.wharf.model;

import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import java.time.Instant;

/**
 * One message as the model holds it. Fields change in place as DESIGN §3's events apply to it;
 * the queue it is in changes too, when it dies or is redriven.
 */
final class ModelMessage {
  final String id;
  /** Publish order, the tie-break of delivery order. */
  final long seq;
  final long publishedAt;
  String queue;
  MessageContent content;
  String key;
  MessageState state = MessageState.READY;
  int attempt;
  long visibleAt;
  Long expiresAt;
  String leaseId;
  long leaseUntil;
  /** A newer publish with its key came while it was leased: its lease ends it, unless it dies. */
  boolean superseded;
  String originalQueue;
  String deadReason;
  Long diedAt;

  ModelMessage(String id, String queue, long seq, long publishedAt, MessageContent content) {
    this.id = id;
    this.queue = queue;
    this.seq = seq;
    this.publishedAt = publishedAt;
    this.content = content;
  }

  /**
   * What the test compares of a message, model or stored: one record, so a mismatch prints both
   * sides whole. Only the time that matters in its state is kept (a ready message's lease columns
   * are left over from its last lease).
   */
  record View(
      String id, String queue, MessageState state, int attempt, MessageContent content,
      String key, Instant publishedAt, Instant expiresAt, Instant stateTime, String originalQueue,
      String deadReason, Instant diedAt) {}

  View view() {
    Long at = state == MessageState.READY ? Long.valueOf(visibleAt)
        : state == MessageState.LEASED ? Long.valueOf(leaseUntil) : null;
    return new View(id, queue, state, attempt, content, key, instant(publishedAt),
        instant(expiresAt), instant(at), originalQueue, deadReason, instant(diedAt));
  }

  static View view(Message m) {
    Instant at = m.state() == MessageState.READY ? m.visibleAt()
        : m.state() == MessageState.LEASED ? m.leaseUntil() : null;
    return new View(m.id(), m.queue(), m.state(), m.attempt(), MessageContent.of(m), m.key(),
        m.publishedAt(), m.expiresAt(), at, m.originalQueue(), m.deadReason(), m.diedAt());
  }

  private static Instant instant(Long epochMillis) {
    return epochMillis == null ? null : Instant.ofEpochMilli(epochMillis);
  }

  @Override
  public String toString() {
    return view().toString();
  }
}
