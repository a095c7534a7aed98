package dev.wharf.http.nativeapi;

import static dev.wharf.http.Endpoints.Guard.DATA;

import dev.wharf.core.Broker;
import dev.wharf.http.ApiError;
import dev.wharf.http.Endpoints;
import dev.wharf.http.Fields;
import dev.wharf.http.Replies;
import dev.wharf.http.RequestBodies;
import dev.wharf.http.server.Request;
import dev.wharf.http.server.Response;
import dev.wharf.store.LeaseOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** Ack, nack, defer and extend of one lease or many, with one outcome per lease. */
public final class SettleService {
  private static final Set<String> ACK = Set.of("lease_id", "lease_ids");
  private static final Set<String> NACK =
      Set.of("lease_id", "lease_ids", "delay", "dead", "reason");
  private static final Set<String> DEFER = Set.of("lease_id", "lease_ids", "delay");
  private static final Set<String> EXTEND = Set.of("lease_id", "lease_ids", "by");

  private final Broker broker;
  private final Endpoints endpoints;
  private final RequestBodies bodies;

  public SettleService(Broker broker, Endpoints endpoints, RequestBodies bodies) {
    this.broker = broker;
    this.endpoints = endpoints;
    this.bodies = bodies;
  }

  public void routes() {
    endpoints.addNonBlocking(Endpoints.POST, "/v1/queues/{name}/ack", DATA, this::ack);
    endpoints.addNonBlocking(Endpoints.POST, "/v1/queues/{name}/nack", DATA, this::nack);
    endpoints.addNonBlocking(Endpoints.POST, "/v1/queues/{name}/defer", DATA, this::defer);
    endpoints.addNonBlocking(Endpoints.POST, "/v1/queues/{name}/extend", DATA, this::extend);
  }

  private void ack(Request req, Response res) {
    Fields f = Fields.of(bodies.object(req, true), ACK);
    answer(res, broker.settle().ackAsync(Routes.queue(req), leaseIds(f), false));
  }

  private void nack(Request req, Response res) {
    Fields f = Fields.of(bodies.object(req, true), NACK);
    String queue = Routes.queue(req);
    List<String> ids = leaseIds(f);
    Duration delay = f.duration("delay");
    String reason = f.string("reason");
    if (Boolean.TRUE.equals(f.bool("dead"))) {
      if (delay != null) {
        // A dead message is not retried: a delay given with it is a mistake, not a no-op.
        throw ApiError.invalidBody("delay has no meaning with dead: true");
      }
      answer(res, broker.settle().deadAsync(queue, ids, reason));
    } else {
      answer(
          res,
          broker.settle().nackAsync(queue, ids, delay == null ? Duration.ZERO : delay, reason));
    }
  }

  private void defer(Request req, Response res) {
    Fields f = Fields.of(bodies.object(req, true), DEFER);
    Duration delay = f.duration("delay");
    answer(
        res,
        broker
            .settle()
            .deferAsync(Routes.queue(req), leaseIds(f), delay == null ? Duration.ZERO : delay));
  }

  private void extend(Request req, Response res) {
    Fields f = Fields.of(bodies.object(req, true), EXTEND);
    List<String> ids = leaseIds(f);
    Duration by = f.duration("by");
    if (by == null) {
      throw ApiError.invalidBody("by is required");
    }
    answer(res, broker.settle().extendAsync(Routes.queue(req), ids, by));
  }

  private static List<String> leaseIds(Fields f) {
    String one = f.string("lease_id");
    List<String> many = f.strings("lease_ids");
    if ((one == null) == (many == null)) {
      throw ApiError.invalidBody("give either lease_id or lease_ids");
    }
    if (many != null && many.isEmpty()) {
      throw ApiError.invalidBody("lease_ids must hold 1 to 100 lease ids");
    }
    return one != null ? List.of(one) : many;
  }

  private static void answer(Response res, CompletableFuture<List<LeaseOutcome>> pending) {
    Endpoints.whenDone(res, pending, SettleService::outcomes);
  }

  private static void outcomes(Response res, List<LeaseOutcome> outcomes) {
    int succeeded = 0;
    for (LeaseOutcome o : outcomes) {
      if (o.outcome().succeeded()) {
        succeeded++;
      }
    }
    int ok = succeeded;
    boolean conflict = ok < outcomes.size();
    Replies.send(
        res,
        conflict ? 409 : 200,
        g -> {
          g.writeStartObject();
          if (conflict) {
            g.writeStringField("code", "lease_conflict");
            g.writeStringField(
                "detail",
                (outcomes.size() - ok) + " of " + outcomes.size() + " leases are not current");
          }
          g.writeNumberField("succeeded", ok);
          g.writeArrayFieldStart("results");
          for (LeaseOutcome o : outcomes) {
            g.writeStartObject();
            g.writeStringField("lease_id", o.leaseId());
            g.writeStringField("outcome", o.outcome().wire());
            if (o.leaseUntil() != null) {
              Replies.time(g, "lease_until", o.leaseUntil());
            }
            g.writeEndObject();
          }
          g.writeEndArray();
          g.writeEndObject();
        });
  }
}
