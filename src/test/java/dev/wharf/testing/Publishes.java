package dev.wharf.testing;

import dev.wharf.core.Publish;
import java.time.Duration;

/** Messages for tests that drive the core directly. */
public final class Publishes {
  private Publishes() {}

  /** A JSON message visible {@code delay} after its publish. */
  public static Publish delayed(String json, Duration delay) {
    Publish p = Publish.json(json);
    return new Publish(p.contentType(), p.payload(), p.headers(), p.metadata(), delay, null,
        null, null);
  }
}
