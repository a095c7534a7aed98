package dev.wharf.http.nativeapi;

import static dev.wharf.http.Endpoints.Guard.MANAGEMENT;

import dev.wharf.core.Broker;
import dev.wharf.http.ApiError;
import dev.wharf.http.Endpoints;
import dev.wharf.http.Fields;
import dev.wharf.http.QueryParams;
import dev.wharf.http.Replies;
import dev.wharf.http.RequestBodies;
import dev.wharf.http.server.Request;
import dev.wharf.http.server.Response;
import dev.wharf.store.Message;
import dev.wharf.store.Redriven;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** A queue's dead letters: list them and move them back (management routes). */
public final class DeadLetterService {
  private static final Set<String> REDRIVE = Set.of("ids");
  private static final Set<String> LIST_QUERY = Set.of("limit", "after");

  private final Broker broker;
  private final Endpoints endpoints;
  private final RequestBodies bodies;

  public DeadLetterService(Broker broker, Endpoints endpoints, RequestBodies bodies) {
    this.broker = broker;
    this.endpoints = endpoints;
    this.bodies = bodies;
  }

  public void routes() {
    endpoints.add(Endpoints.GET, "/v1/queues/{name}/dlq", MANAGEMENT, LIST_QUERY, this::list);
    endpoints.add(Endpoints.POST, "/v1/queues/{name}/dlq/redrive", MANAGEMENT, this::redrive);
  }

  private void list(Request req, Response res) {
    String queue = Routes.queue(req);
    QueryParams q = new QueryParams(req);
    int limit = q.integer("limit", 50);
    long after = q.nonNegativeLong("after", 0);
    Instant now = broker.now();
    List<Message> page = Routes.asParam(() -> broker.deadLetters(queue, after, limit));
    Replies.send(res, 200, MessageJson.page(page, limit, now));
  }

  private void redrive(Request req, Response res) {
    Fields f = Fields.of(bodies.object(req), REDRIVE);
    List<String> ids = f.strings("ids");
    if (f.isNull("ids") || (ids != null && ids.isEmpty())) {
      // Read as absent, a null would redrive every dead message: a client that writes an empty
      // list as null means none of them. All is asked for by leaving ids out.
      throw ApiError.invalidBody(
          "ids must hold 1 to 1000 message ids; leave ids out to redrive every dead message");
    }
    Redriven r = broker.redrive(Routes.queue(req), ids);
    Replies.send(
        res,
        200,
        g -> {
          g.writeStartObject();
          g.writeNumberField("redriven", r.moved());
          if (ids != null) {
            g.writeArrayFieldStart("skipped");
            for (String id : r.skipped()) {
              g.writeString(id);
            }
            g.writeEndArray();
          }
          g.writeEndObject();
        });
  }
}
