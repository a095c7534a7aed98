package dev.wharf.http.nativeapi;

import static dev.wharf.http.Endpoints.Guard.DATA;
import static dev.wharf.http.Endpoints.Guard.DATA_AFTER_MARK;
import static dev.wharf.http.Endpoints.Guard.MANAGEMENT;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.http.ApiError;
import dev.wharf.http.Endpoints;
import dev.wharf.http.Fields;
import dev.wharf.http.QueryParams;
import dev.wharf.http.Replies;
import dev.wharf.http.RequestBodies;
import dev.wharf.http.server.Request;
import dev.wharf.http.server.Response;
import dev.wharf.store.Delivery;
import dev.wharf.store.Message;
import dev.wharf.store.MessageState;
import dev.wharf.store.PublishResult;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** Publish and receive (data routes); browse and message by id (management routes). */
public final class MessagesService {
  private static final Set<String> RECEIVE = Set.of("max", "wait", "visibility_timeout");
  private static final Set<String> BROWSE_QUERY = Set.of("state", "limit", "after");

  private final Broker broker;
  private final Endpoints endpoints;
  private final RequestBodies bodies;

  public MessagesService(Broker broker, Endpoints endpoints, RequestBodies bodies) {
    this.broker = broker;
    this.endpoints = endpoints;
    this.bodies = bodies;
  }

  public void routes() {
    endpoints.addNonBlocking(Endpoints.POST, "/v1/queues/{name}/messages", DATA, this::publish);
    endpoints.addNonBlocking(
        Endpoints.POST, "/v1/queues/{name}/receive", DATA_AFTER_MARK, this::receive);
    endpoints.add(
        Endpoints.GET, "/v1/queues/{name}/messages", MANAGEMENT, BROWSE_QUERY, this::browse);
    endpoints.add(Endpoints.GET, "/v1/queues/{name}/messages/{id}", MANAGEMENT, this::one);
    endpoints.add(Endpoints.DELETE, "/v1/queues/{name}/messages/{id}", MANAGEMENT, this::delete);
    // An empty id, as an unset variable in a script makes: no message, not a missing route.
    endpoints.add(Endpoints.GET, "/v1/queues/{name}/messages/", MANAGEMENT, this::withoutId);
    endpoints.add(Endpoints.DELETE, "/v1/queues/{name}/messages/", MANAGEMENT, this::withoutId);
  }

  private void publish(Request req, Response res) {
    PublishParser.Parsed parsed = PublishParser.parse(bodies.required(req));
    CompletableFuture<List<PublishResult>> pending;
    try {
      pending = broker.publishAsync(Routes.queue(req), parsed.messages());
    } catch (BrokerException.Invalid e) {
      throw parsed.batch() && e.item() >= 0 ? ofMessage(e) : e;
    }
    Endpoints.whenDone(res, pending, (r, results) -> published(r, parsed.batch(), results));
  }

  /** A batch's message named as the parser names it: {@code messages[1].delay must be ...}. */
  private static ApiError ofMessage(BrokerException.Invalid e) {
    return ApiError.invalidBody("messages[" + e.item() + "]." + e.getMessage());
  }

  private static void published(Response res, boolean batch, List<PublishResult> results) {
    if (!batch) {
      Replies.send(res, 201, g -> result(g, results.get(0)));
      return;
    }
    Replies.send(
        res,
        201,
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("messages");
          for (PublishResult r : results) {
            result(g, r);
          }
          g.writeEndArray();
          g.writeEndObject();
        });
  }

  private static void result(JsonGenerator g, PublishResult r) throws IOException {
    g.writeStartObject();
    g.writeStringField("id", r.id());
    g.writeBooleanField("duplicate", r.duplicate());
    g.writeBooleanField("replaced", r.replaced());
    g.writeEndObject();
  }

  private void receive(Request req, Response res) {
    String queue = Routes.queue(req);
    // Authorised after the mark: a token revoked from here on ends the wait.
    long mark = broker.settingsMark(queue);
    endpoints.authoriseData(req);
    Fields f = Fields.of(bodies.object(req), RECEIVE);
    Integer max = f.integer("max");
    Duration asked = f.duration("wait");
    Duration wait = asked == null ? Duration.ZERO : asked;
    CompletableFuture<List<Delivery>> pending =
        broker.receiveLater(
            queue, max == null ? 1 : max, wait, f.duration("visibility_timeout"), mark);
    if (!wait.isZero()) {
      // A parked long-poll holds no thread; a consumer that leaves stops its wait. A receive that
      // does not wait is answered like any request, even to a client that has shut its side.
      req.onDisconnect(() -> pending.cancel(false));
    }
    Endpoints.whenDone(res, pending, (r, got) -> deliver(r, queue, got));
  }

  private void deliver(Response res, String queue, List<Delivery> got) {
    // Lease first, then write: a consumer that left must not hold the messages until expiry,
    // nor one whose answer could not be made.
    byte[] answer;
    try {
      answer = MessageJson.deliveries(got);
    } catch (RuntimeException e) {
      broker.releaseQuietly(queue, got);
      throw e;
    }
    Replies.send(res, 200, answer, () -> broker.releaseQuietly(queue, got));
  }

  private void browse(Request req, Response res) {
    String queue = Routes.queue(req);
    QueryParams q = new QueryParams(req);
    String filter = q.string("state");
    MessageState state = stateParam(filter);
    Boolean delayed =
        filter == null
            ? null
            : filter.equals("delayed")
                ? Boolean.TRUE
                : filter.equals("ready") ? Boolean.FALSE : null;
    int limit = q.integer("limit", 50);
    long after = q.nonNegativeLong("after", 0);
    Instant now = broker.now();
    List<Message> page = Routes.asParam(() -> broker.browse(queue, state, delayed, after, limit));
    Replies.send(res, 200, MessageJson.page(page, limit, now));
  }

  /** The browse filter: "ready" is visible now and "delayed" visible later, both READY. */
  private static MessageState stateParam(String s) {
    if (s == null) {
      return null;
    }
    return switch (s) {
      case "ready", "delayed" -> MessageState.READY;
      case "leased" -> MessageState.LEASED;
      case "expired" -> MessageState.EXPIRED;
      default ->
          throw ApiError.invalidParam(
              "state must be ready, delayed, leased or expired, got \"" + s + "\"");
    };
  }

  private void one(Request req, Response res) {
    Message m = broker.message(Routes.queue(req), req.param("id"));
    Instant now = broker.now();
    Replies.send(res, 200, g -> MessageJson.stored(g, m, now));
  }

  private void withoutId(Request req, Response res) {
    broker.settings(Routes.queue(req));
    throw new ApiError(
        404, "message_not_found", "the path names no message (its last segment is empty)");
  }

  private void delete(Request req, Response res) {
    bodies.none(req);
    broker.deleteMessage(Routes.queue(req), req.param("id"));
    Replies.noContent(res);
  }
}
