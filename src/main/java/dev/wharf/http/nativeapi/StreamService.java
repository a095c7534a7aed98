package dev.wharf.http.nativeapi;

import static dev.wharf.http.Endpoints.Guard.DATA;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.http.ApiError;
import dev.wharf.http.Endpoints;
import dev.wharf.http.QueryParams;
import dev.wharf.http.server.EventStream;
import dev.wharf.http.server.Request;
import dev.wharf.http.server.Response;
import dev.wharf.store.Delivery;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Server-sent events: each message is leased, then written as one event named by its lease id. A
 * quiet stream gets a keepalive comment; a failed write releases the leases not delivered. When
 * the queue is deleted, storage fails or the server stops, the stream ends with an {@code error}
 * event saying which.
 */
public final class StreamService {
  private static final Logger LOG = Logger.getLogger(StreamService.class.getName());

  private final Broker broker;
  private final Endpoints endpoints;
  private final Duration keepalive;

  public StreamService(Broker broker, Endpoints endpoints, Duration keepalive) {
    this.broker = broker;
    this.endpoints = endpoints;
    this.keepalive = keepalive;
  }

  public void routes() {
    // Not HEAD: the stream leases the messages it writes, and a HEAD's body is never sent.
    endpoints.addGetOnly(
        "/v1/queues/{name}/stream",
        DATA,
        Set.of("max", "visibility_timeout"),
        this::stream);
  }

  private void stream(Request req, Response res) {
    String queue = Routes.queue(req);
    QueryParams q = new QueryParams(req);
    int max = q.integer("max", 1);
    Duration visibility = q.duration("visibility_timeout");
    broker.requireRoomToWait();
    // A first claim that does not wait: bad parameters and unknown queues are still plain 4xx.
    List<Delivery> batch =
        Routes.asParam(() -> broker.receive(queue, max, Duration.ZERO, visibility));
    EventStream sink;
    try {
      sink = res.eventStream();
    } catch (RuntimeException e) {
      broker.releaseQuietly(queue, batch);
      throw e;
    }
    try {
      // Every claimed batch is written (or released) before the loop may end, so stopping the
      // server never strands a lease until it expires: a stop ends the receive below, which
      // claims nothing more.
      while (true) {
        if (batch.isEmpty()) {
          sink.comment("keepalive");
        } else if (!emit(sink, queue, batch)) {
          return;
        }
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        // The queue's tokens may have changed since the stream opened (a change ends the wait
        // below early, so this runs then): a revoked token receives nothing more. Checked after
        // the mark, so a change between the check and the wait ends that wait too.
        long mark = broker.settingsMark(queue);
        endpoints.authoriseData(req);
        batch = broker.receiveRound(queue, max, keepalive, visibility, mark);
      }
    } catch (ApiError e) {
      errorQuietly(sink, e.getMessage());
    } catch (BrokerException e) {
      // The queue went away, storage failed or the server stops: say so, then end the stream.
      errorQuietly(sink, e.getMessage());
    } catch (RuntimeException e) {
      LOG.log(Level.FINE, "stream ended", e);
    } finally {
      closeQuietly(sink);
    }
  }

  /** Writes each delivery; on the first failed write releases it and the rest. */
  private boolean emit(EventStream sink, String queue, List<Delivery> batch) {
    for (int i = 0; i < batch.size(); i++) {
      Delivery d = batch.get(i);
      try {
        String data = new String(MessageJson.delivery(d), StandardCharsets.UTF_8);
        sink.event("message", d.leaseId(), data);
      } catch (RuntimeException e) {
        broker.releaseQuietly(queue, batch.subList(i, batch.size()));
        LOG.log(Level.FINE, "stream client went away", e);
        return false;
      }
    }
    return true;
  }

  private static void errorQuietly(EventStream sink, String message) {
    try {
      sink.event("error", null, message);
    } catch (RuntimeException ignored) {
      // the client is gone
    }
  }

  private static void closeQuietly(EventStream sink) {
    try {
      sink.close();
    } catch (RuntimeException ignored) {
      // the client is gone
    }
  }
}
