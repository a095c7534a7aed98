package dev.wharf.http.nativeapi;

import static dev.wharf.http.Endpoints.Guard.MANAGEMENT;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.http.Endpoints;
import dev.wharf.http.Replies;
import dev.wharf.http.RequestBodies;
import io.helidon.http.Method;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;

/** Queue create/update, list, inspect, delete and purge (management routes). */
public final class QueuesService implements HttpService {
  private final Broker broker;
  private final Endpoints endpoints;
  private final RequestBodies bodies;

  public QueuesService(Broker broker, Endpoints endpoints, RequestBodies bodies) {
    this.broker = broker;
    this.endpoints = endpoints;
    this.bodies = bodies;
  }

  @Override
  public void routing(HttpRules rules) {
    endpoints.add(rules, Method.GET, "/v1/queues", MANAGEMENT, this::list);
    endpoints.add(rules, Method.PUT, "/v1/queues/{name}", MANAGEMENT, this::put);
    endpoints.add(rules, Method.GET, "/v1/queues/{name}", MANAGEMENT, this::get);
    endpoints.add(rules, Method.DELETE, "/v1/queues/{name}", MANAGEMENT, this::delete);
    endpoints.add(rules, Method.POST, "/v1/queues/{name}/purge", MANAGEMENT, this::purge);
  }

  private void list(ServerRequest req, ServerResponse res) {
    List<String> names = broker.queueNames();
    Replies.send(res, 200, g -> {
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
      g.writeEndObject();
    });
  }

  private void put(ServerRequest req, ServerResponse res) {
    String name = Routes.queue(req);
    boolean created = broker.putQueue(name, QueueJson.patch(bodies.object(req)));
    render(res, created ? 201 : 200, name);
  }

  private void get(ServerRequest req, ServerResponse res) {
    render(res, 200, Routes.queue(req));
  }

  private void delete(ServerRequest req, ServerResponse res) {
    String name = Routes.queue(req);
    if (!broker.deleteQueue(name)) {
      throw new BrokerException.QueueNotFound(name);
    }
    Replies.noContent(res);
  }

  private void purge(ServerRequest req, ServerResponse res) {
    long n = broker.purge(Routes.queue(req));
    Replies.send(res, 200, g -> {
      g.writeStartObject();
      g.writeNumberField("purged", n);
      g.writeEndObject();
    });
  }

  private void render(ServerResponse res, int status, String name) {
    var settings = broker.settings(name);
    var stats = broker.stats(name);
    Replies.send(res, status, g -> QueueJson.queue(g, name, settings, stats, broker.now()));
  }
}
