package dev.wharf.http.nativeapi;

import static dev.wharf.http.Endpoints.Guard.DATA;

import dev.wharf.core.Broker;
import dev.wharf.core.BrokerException;
import dev.wharf.http.Endpoints;
import dev.wharf.http.QueryParams;
import dev.wharf.store.Delivery;
import io.helidon.http.Method;
import io.helidon.http.sse.SseEvent;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.sse.SseSink;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Server-sent events: each message is leased, then written as one event named by its lease id.
 * A quiet stream gets a keepalive comment; a failed write releases the leases not delivered.
 */
public final class StreamService implements HttpService {
  private static final Logger LOG = Logger.getLogger(StreamService.class.getName());
  /** The longest park the core allows by default; a quieter stream gets keepalives more often. */
  private static final Duration LONGEST_WAIT = Duration.ofSeconds(30);
  private static final SseEvent KEEPALIVE = SseEvent.builder().comment("keepalive").build();

  private final Broker broker;
  private final Endpoints endpoints;
  private final Duration keepalive;
  private final BooleanSupplier closing;

  public StreamService(
      Broker broker, Endpoints endpoints, Duration keepalive, BooleanSupplier closing) {
    this.broker = broker;
    this.endpoints = endpoints;
    this.keepalive =
        keepalive.compareTo(LONGEST_WAIT) > 0 || keepalive.isZero() ? LONGEST_WAIT : keepalive;
    this.closing = closing;
  }

  @Override
  public void routing(HttpRules rules) {
    endpoints.add(rules, Method.GET, "/v1/queues/{name}/stream", DATA, this::stream);
  }

  private void stream(ServerRequest req, ServerResponse res) {
    String queue = Routes.queue(req);
    QueryParams q = new QueryParams(req.query());
    int max = q.integer("max", 1);
    Duration visibility = q.duration("visibility_timeout");
    // A first claim that does not wait: bad parameters and unknown queues are still plain 4xx.
    List<Delivery> batch =
        MessagesService.asParam(() -> broker.receive(queue, max, Duration.ZERO, visibility));
    SseSink sink;
    try {
      sink = res.sink(SseSink.TYPE);
    } catch (RuntimeException e) {
      Routes.release(broker, queue, batch);
      throw e;
    }
    try {
      while (!closing.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
        if (batch.isEmpty()) {
          sink.emit(KEEPALIVE);
        } else if (!emit(sink, queue, batch)) {
          return;
        }
        batch = broker.receive(queue, max, keepalive, visibility);
      }
    } catch (BrokerException e) {
      // The queue went away or storage failed mid-stream: say so, then end the stream.
      emitQuietly(sink, SseEvent.builder().name("error").data(new String[] {e.getMessage()}).build());
    } catch (RuntimeException e) {
      LOG.log(Level.FINE, "stream ended", e);
    } finally {
      closeQuietly(sink);
    }
  }

  /** Writes each delivery; on the first failed write releases it and the rest. */
  private boolean emit(SseSink sink, String queue, List<Delivery> batch) {
    for (int i = 0; i < batch.size(); i++) {
      Delivery d = batch.get(i);
      try {
        String data = new String(MessageJson.delivery(d), StandardCharsets.UTF_8);
        sink.emit(SseEvent.builder().name("message").id(d.leaseId()).data(new String[] {data}).build());
      } catch (RuntimeException e) {
        Routes.release(broker, queue, batch.subList(i, batch.size()));
        LOG.log(Level.FINE, "stream client went away", e);
        return false;
      }
    }
    return true;
  }

  private static void emitQuietly(SseSink sink, SseEvent e) {
    try {
      sink.emit(e);
    } catch (RuntimeException ignored) {
      // the client is gone
    }
  }

  private static void closeQuietly(SseSink sink) {
    try {
      sink.close();
    } catch (RuntimeException ignored) {
      // the client is gone
    }
  }
}
