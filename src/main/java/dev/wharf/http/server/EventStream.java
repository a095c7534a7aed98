package dev.wharf.http.server;

import java.nio.charset.StandardCharsets;

/**
 * A server-sent event stream. Each write returns once the bytes are handed to the socket, so a
 * slow reader holds the writer back, and a client that left is a {@link ClientGone}.
 */
public final class EventStream implements AutoCloseable {
  private final Exchange exchange;
  private boolean closed;

  EventStream(Exchange exchange) {
    this.exchange = exchange;
  }

  /** One event; {@code data} may span lines, each becomes a {@code data:} line. */
  public void event(String name, String id, String data) {
    StringBuilder b = new StringBuilder(data.length() + 64);
    if (name != null) {
      b.append("event: ").append(name).append('\n');
    }
    if (id != null) {
      b.append("id: ").append(id).append('\n');
    }
    // A line of an event ends at CR, LF or CR LF alike: the data goes out a line at a time, each
    // in a field of its own, which clients join again with LF. A CR passed through would end the
    // field there for them, and the rest of the data would be lost.
    int start = 0;
    int n = data.length();
    for (int i = 0; i < n; i++) {
      char c = data.charAt(i);
      if (c == '\n' || c == '\r') {
        b.append("data: ").append(data, start, i).append('\n');
        if (c == '\r' && i + 1 < n && data.charAt(i + 1) == '\n') {
          i++;
        }
        start = i + 1;
      }
    }
    b.append("data: ").append(data, start, n).append('\n');
    b.append('\n');
    exchange.writeChunk(b.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** A comment line, which clients ignore: keeps idle connections and their proxies open. */
  public void comment(String text) {
    exchange.writeChunk((": " + text + "\n\n").getBytes(StandardCharsets.UTF_8));
  }

  /** Ends the stream; the connection stays open for the next request. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      exchange.endStream();
    }
  }
}
