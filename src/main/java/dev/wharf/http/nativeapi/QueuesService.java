package dev.wharf.http.nativeapi;

import static dev.wharf.http.Endpoints.Guard.MANAGEMENT;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.core.QueueSettings;
import dev.wharf.http.ApiError;
import dev.wharf.http.Endpoints;
import dev.wharf.http.QueryParams;
import dev.wharf.http.Replies;
import dev.wharf.http.RequestBodies;
import dev.wharf.http.server.Request;
import dev.wharf.http.server.Response;
import java.util.List;
import java.util.Set;

/** Queue create/update, list, inspect, delete and purge (management routes). */
public final class QueuesService {
  private static final Set<String> LIST_QUERY = Set.of("limit", "after");
  private final Broker broker;
  private final Endpoints endpoints;
  private final RequestBodies bodies;

  public QueuesService(Broker broker, Endpoints endpoints, RequestBodies bodies) {
    this.broker = broker;
    this.endpoints = endpoints;
    this.bodies = bodies;
  }

  public void routes() {
    endpoints.add(Endpoints.GET, "/v1/queues", MANAGEMENT, LIST_QUERY, this::list);
    endpoints.add(Endpoints.PUT, "/v1/queues/{name}", MANAGEMENT, this::put);
    endpoints.add(Endpoints.PUT, "/v1/queues/", MANAGEMENT, this::putWithoutName);
    endpoints.add(Endpoints.GET, "/v1/queues/{name}", MANAGEMENT, this::get);
    endpoints.add(Endpoints.GET, "/v1/queues/", MANAGEMENT, this::withoutName);
    endpoints.add(Endpoints.DELETE, "/v1/queues/{name}", MANAGEMENT, this::delete);
    endpoints.add(Endpoints.DELETE, "/v1/queues/", MANAGEMENT, this::withoutName);
    endpoints.add(Endpoints.POST, "/v1/queues/{name}/purge", MANAGEMENT, this::purge);
    // /v1/queues//messages and the like: an empty name mid-path, as an unset variable makes.
    endpoints.notFoundUnder(
        "/v1/queues//",
        new ApiError(
            404,
            "queue_not_found",
            "the path names no queue (its queue segment is empty); GET /v1/queues lists them"));
  }

  /**
   * Every queue without {@code limit}, as before paging was added, so a client that never pages
   * still sees them all; with it, a page whose {@code next} is set when it is full, as browse's.
   */
  private void list(Request req, Response res) {
    QueryParams q = new QueryParams(req);
    boolean paged = q.string("limit") != null;
    int limit = paged ? q.integer("limit", 0) : 0;
    List<String> names =
        paged ? Routes.asParam(() -> broker.queueNames(q.string("after"), limit))
            : broker.queueNames();
    String next = paged && names.size() == limit ? names.get(names.size() - 1) : null;
    Replies.send(
        res,
        200,
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("queues");
          for (String name : names) {
            try {
              QueueJson.queue(g, name, broker.settings(name), broker.stats(name), broker.now());
            } catch (BrokerException.QueueNotFound gone) {
              // Deleted between listing and reading: it is simply not in the answer.
            }
          }
          g.writeEndArray();
          g.writeStringField("next", next);
          g.writeEndObject();
        });
  }

  private void put(Request req, Response res) {
    String name = Routes.queue(req);
    if (!QueueSettings.validName(name)) {
      // The name is the path's, not the body's: a body error would send the client looking there.
      throw invalidName();
    }
    boolean created = broker.putQueue(name, QueueJson.patch(bodies.object(req)));
    render(res, created ? 201 : 200, name);
  }

  private void putWithoutName(Request req, Response res) {
    throw invalidName();
  }

  /**
   * A queue route with an empty name, mostly an empty variable in a script, or a trailing slash on
   * the list: the queue is not found, as with any other name no queue may have, and the answer
   * says where the list is. Without these routes it was a 405 that sent the caller to PUT.
   */
  private void withoutName(Request req, Response res) {
    throw new ApiError(
        404,
        "queue_not_found",
        "the path names no queue (its last segment is empty); GET /v1/queues lists the queues");
  }

  private static ApiError invalidName() {
    return new ApiError(
        400, "invalid_queue_name", "queue name in the path: " + QueueSettings.NAME_RULE);
  }

  private void get(Request req, Response res) {
    render(res, 200, Routes.queue(req));
  }

  private void delete(Request req, Response res) {
    bodies.none(req);
    String name = Routes.queue(req);
    if (!broker.deleteQueue(name)) {
      throw new BrokerException.QueueNotFound(name);
    }
    Replies.noContent(res);
  }

  private void purge(Request req, Response res) {
    bodies.none(req);
    long n = broker.purge(Routes.queue(req));
    Replies.send(
        res,
        200,
        g -> {
          g.writeStartObject();
          g.writeNumberField("purged", n);
          g.writeEndObject();
        });
  }

  private void render(Response res, int status, String name) {
    var settings = broker.settings(name);
    var stats = broker.stats(name);
    Replies.send(res, status, g -> QueueJson.queue(g, name, settings, stats, broker.now()));
  }
}
