package dev.wharf.concurrency;

import dev.wharf.core.Broker;
import dev.wharf.core.Settlements;
import dev.wharf.store.Delivery;
import dev.wharf.store.LeaseOutcome;
import dev.wharf.store.LeaseOutcome.Outcome;
import dev.wharf.store.SettleKind;
import dev.wharf.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A consumer: receives batches of 1 to 100 (some waiting a few hundred ms), then acks, nacks,
 * kills, defers, extends or releases each lease, or keeps it: kept leases are settled some
 * calls later, when many have expired, or never (they expire). Answers that no state can
 * explain are reported at once: a current lease refused, a repeated ack not a success.
 */
final class ConsumerLoop implements Runnable {
  private enum Plan { ACK, NACK, DEAD, DEFER, EXTEND_THEN_ACK, RELEASE, KEEP, ABANDON }

  private final String name;
  private final Random random;
  private final Broker broker;
  private final MutableClock clock;
  private final Ledger ledger;
  private final PauseGate gate;
  private final String queue;
  private final List<Delivered> kept = new ArrayList<>();

  ConsumerLoop(String name, long seed, Broker broker, MutableClock clock, Ledger ledger,
      PauseGate gate, String queue) {
    this.name = name;
    this.random = new Random(seed);
    this.broker = broker;
    this.clock = clock;
    this.ledger = ledger;
    this.gate = gate;
    this.queue = queue;
  }

  @Override
  public void run() {
    try {
      while (gate.checkpoint()) {
        if (!kept.isEmpty() && random.nextInt(3) == 0) {
          settleKept();
        } else {
          receiveAndSettle();
        }
        gate.called();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      ledger.surprise(name + " failed: " + e);
    } finally {
      gate.finished();
    }
  }

  private void receiveAndSettle() {
    int max = random.nextInt(4) == 0 ? 1 + random.nextInt(100) : 1 + random.nextInt(10);
    Duration wait = random.nextInt(4) == 0 ? Duration.ofMillis(50 + random.nextInt(250))
        : Duration.ZERO;
    Duration visibility = random.nextBoolean() ? null : Duration.ofSeconds(2 + random.nextInt(8));
    long before = clock.millis();
    long startTick = ledger.tick();
    List<Delivery> got = broker.receive(queue, max, wait, visibility);
    long endTick = ledger.tick();
    long after = clock.millis();
    if (got.size() > max) {
      ledger.surprise(name + " asked for " + max + " and got " + got.size());
    }
    Map<Plan, List<Delivered>> plans = new EnumMap<>(Plan.class);
    for (Delivery d : got) {
      Delivered rec = new Delivered(d.message().id(), d.leaseId(), d.message().queue(),
          d.message().attempt(), new String(d.message().payload(), StandardCharsets.UTF_8),
          d.leaseUntil().toEpochMilli(), startTick, endTick, before, after, name);
      ledger.delivered(rec);
      plans.computeIfAbsent(plan(), p -> new ArrayList<>()).add(rec);
    }
    plans.forEach(this::carryOut);
  }

  private Plan plan() {
    int r = random.nextInt(100);
    if (r < 45) {
      return Plan.ACK;
    } else if (r < 57) {
      return Plan.NACK;
    } else if (r < 61) {
      return Plan.DEAD;
    } else if (r < 71) {
      return Plan.DEFER;
    } else if (r < 77) {
      return Plan.EXTEND_THEN_ACK;
    } else if (r < 82) {
      return Plan.RELEASE;
    } else if (r < 92) {
      return Plan.KEEP;
    }
    return Plan.ABANDON;
  }

  private void carryOut(Plan plan, List<Delivered> ds) {
    switch (plan) {
      case ACK -> {
        List<LeaseOutcome> first = settle(SettleKind.ACK, ds, 0, 0);
        if (random.nextInt(5) == 0) {
          repeatAcks(ds, first);
        }
      }
      case NACK -> {
        long delay = random.nextBoolean() ? 0 : 500 + random.nextInt(2_500);
        settle(SettleKind.RETRY, ds, delay, 0);
      }
      case DEAD -> settle(SettleKind.DEAD, ds, 0, 0);
      case DEFER -> settle(SettleKind.DEFER, ds, random.nextInt(2_000), 0);
      case EXTEND_THEN_ACK -> {
        settle(SettleKind.EXTEND, ds, 0, 3_000 + random.nextInt(12_000));
        if (random.nextBoolean()) {
          settle(SettleKind.ACK, ds, 0, 0);
        } else {
          kept.addAll(ds);
        }
      }
      case RELEASE -> settle(SettleKind.RELEASE, ds, 0, 0);
      case KEEP -> kept.addAll(ds);
      case ABANDON -> { }
    }
  }

  /** Settles some kept leases late: by now the clock may have passed them, or not. */
  private void settleKept() {
    int n = 1 + random.nextInt(kept.size());
    List<Delivered> late = new ArrayList<>(kept.subList(0, n));
    kept.subList(0, n).clear();
    SettleKind kind = switch (random.nextInt(4)) {
      case 0 -> SettleKind.RETRY;
      case 1 -> SettleKind.DEFER;
      default -> SettleKind.ACK;
    };
    settle(kind, late, kind == SettleKind.ACK ? 0 : random.nextInt(1_500), 0);
  }

  /** A repeat of an ack that succeeded is a success too (DESIGN section 3). */
  private void repeatAcks(List<Delivered> ds, List<LeaseOutcome> first) {
    List<Delivered> acked = new ArrayList<>();
    for (int i = 0; i < ds.size(); i++) {
      if (first.get(i).outcome() == Outcome.ACKED) {
        acked.add(ds.get(i));
      }
    }
    if (acked.isEmpty()) {
      return;
    }
    List<String> ids = acked.stream().map(d -> d.leaseId).toList();
    for (LeaseOutcome o : broker.settle().ack(queue, ids, false)) {
      if (o.outcome() != Outcome.ACKED) {
        ledger.surprise(name + " repeated an ack of " + o.leaseId() + " and got " + o);
      }
    }
  }

  /** One settle call for all of {@code ds}; each answer goes into its delivery's record. */
  private List<LeaseOutcome> settle(SettleKind kind, List<Delivered> ds, long delayMs,
      long extendMs) {
    List<String> ids = ds.stream().map(d -> d.leaseId).toList();
    // What the lease was before this call: a lease surely current throughout must not be refused.
    List<Long> untils = ds.stream().map(Delivered::maxUntil).toList();
    List<Boolean> open = ds.stream().map(d -> d.end() == null).toList();
    Settlements s = broker.settle();
    Duration delay = Duration.ofMillis(delayMs);
    long before = clock.millis();
    long startTick = ledger.tick();
    List<LeaseOutcome> out = switch (kind) {
      case ACK -> s.ack(queue, ids, false);
      case RETRY -> s.nack(queue, ids, delay);
      case DEAD -> s.dead(queue, ids, "given up by " + name);
      case DEFER -> s.defer(queue, ids, delay);
      case EXTEND -> s.extend(queue, ids, Duration.ofMillis(extendMs));
      case RELEASE -> s.release(queue, ids);
    };
    long endTick = ledger.tick();
    long after = clock.millis();
    if (out.size() != ds.size()) {
      ledger.surprise(name + " settled " + ds.size() + " leases, got " + out.size() + " answers");
      return out;
    }
    for (int i = 0; i < ds.size(); i++) {
      LeaseOutcome o = out.get(i);
      Delivered d = ds.get(i);
      if (!o.leaseId().equals(d.leaseId)) {
        ledger.surprise(name + " got the answer for " + o.leaseId() + " in place of " + d.leaseId);
      }
      long extended = o.leaseUntil() == null ? 0 : o.leaseUntil().toEpochMilli();
      d.add(new Settled(kind, o.outcome(), o.superseded(), delayMs, extended, startTick, endTick,
          before, after));
      if (!o.outcome().succeeded() && open.get(i) && untils.get(i) > after) {
        ledger.surprise(name + " " + kind + " of a lease current throughout the call refused: "
            + o + " " + d);
      }
      if (o.outcome() == Outcome.EXTENDED && extended < untils.get(i)) {
        ledger.surprise(name + " extend moved a lease earlier: " + o + " " + d);
      }
    }
    return out;
  }
}
