package dev.wharf.crash;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the clients know for sure, and what they cannot know, across server crashes. Messages are
 * identified by the sequence number {@code n} their publisher put in the body, so identity holds
 * whatever the server does with ids (DLQ moves included).
 */
final class Ledger {
  /** One hand-out of message {@code n}, under {@code leaseId}, to a receive sent at {@code askedNs}. */
  record Delivery(long n, String leaseId, long askedNs, String queue) {}

  /** An ack the server confirmed: {@code n} under {@code leaseId}, confirmed at {@code confirmedNs}. */
  record Ack(String leaseId, long confirmedNs) {}

  final AtomicLong nextN = new AtomicLong(1);
  /** Publishes answered 2xx: the server promised these are on disk. */
  final Set<Long> published = ConcurrentHashMap.newKeySet();
  /** Publishes whose answer never came (the server died): they may or may not exist. */
  final Set<Long> publishUnknown = ConcurrentHashMap.newKeySet();
  final Map<Long, Ack> acked = new ConcurrentHashMap<>();
  /** Acks whose answer never came: the message may or may not be gone. */
  final Set<Long> ackUnknown = ConcurrentHashMap.newKeySet();
  final ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();
  final AtomicLong ackConflicts = new AtomicLong();
  final AtomicLong abandoned = new AtomicLong();
  private final ConcurrentLinkedQueue<String> ackedTwice = new ConcurrentLinkedQueue<>();

  /** Records a confirmed ack; a second confirmed ack of the same message under another lease is
   * a broken promise (one of the two deliveries must have been stale). */
  void confirmAck(long n, String leaseId, long confirmedNs) {
    Ack first = acked.putIfAbsent(n, new Ack(leaseId, confirmedNs));
    if (first != null && !first.leaseId().equals(leaseId)) {
      ackedTwice.add("message " + n + " acked under lease " + first.leaseId() + " and again under "
          + leaseId);
    }
  }

  /**
   * Problems found, empty when every promise held: each 2xx-published message was acked or is
   * still there ({@code drained} = what the final drain got from the queue and its DLQ), and no
   * message whose ack was confirmed was handed out again afterwards.
   */
  List<String> problems(Set<Long> drained) {
    List<String> problems = new ArrayList<>(ackedTwice);
    List<Long> lost = new ArrayList<>();
    for (long n : published) {
      if (!acked.containsKey(n) && !ackUnknown.contains(n) && !drained.contains(n)) {
        lost.add(n);
      }
    }
    if (!lost.isEmpty()) {
      problems.add(lost.size() + " published messages lost, e.g. " + sample(lost));
    }
    for (Delivery d : deliveries) {
      Ack a = acked.get(d.n());
      if (a != null && !a.leaseId().equals(d.leaseId()) && d.askedNs() > a.confirmedNs()) {
        problems.add("message " + d.n() + " handed out again (lease " + d.leaseId() + " from "
            + d.queue() + ") after its ack under lease " + a.leaseId() + " was confirmed");
      }
      if (!published.contains(d.n()) && !publishUnknown.contains(d.n())) {
        problems.add("message " + d.n() + " delivered but never published");
      }
    }
    List<Long> ackedThenDrained = new ArrayList<>();
    for (long n : drained) {
      if (acked.containsKey(n)) {
        ackedThenDrained.add(n);
      }
    }
    if (!ackedThenDrained.isEmpty()) {
      problems.add(ackedThenDrained.size() + " acked messages still present at the end, e.g. "
          + sample(ackedThenDrained));
    }
    return problems;
  }

  private static List<Long> sample(List<Long> ns) {
    return ns.stream().sorted().limit(10).toList();
  }
}
