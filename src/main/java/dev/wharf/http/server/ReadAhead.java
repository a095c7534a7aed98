package dev.wharf.http.server;

import io.netty.channel.Channel;
import java.util.ArrayDeque;

/**
 * The requests a connection read ahead of their turn, in order, while the one before them is
 * answered; once {@link #MAX_WAITING} wait, the connection stops reading until their turns come.
 * Event loop only.
 */
final class ReadAhead {
  /** Requests read ahead of their turn before the connection stops reading. */
  private static final int MAX_WAITING = 16;

  /** A request read ahead of its turn. */
  record Queued(Exchange ex, Request req) {}

  private final ArrayDeque<Queued> waiting = new ArrayDeque<>();
  private boolean paused;

  /** Queues a request behind the one being answered; {@code ch} stops reading if too many wait. */
  void add(Exchange ex, Request req, Channel ch) {
    waiting.add(new Queued(ex, req));
    if (waiting.size() >= MAX_WAITING && !paused) {
      paused = true;
      ch.config().setAutoRead(false);
    }
  }

  /** The request whose turn comes next, or null when none waits. */
  Queued poll() {
    return waiting.poll();
  }

  /** Requests read ahead that will not run: their bodies go back to the budget. */
  void drop(BodyBudget budget) {
    for (Queued q : waiting) {
      q.ex().giveBackBody(budget);
    }
    waiting.clear();
  }

  /** None waits any more: {@code ch} reads again if it stopped for them. */
  void resume(Channel ch) {
    if (paused) {
      paused = false;
      ch.config().setAutoRead(true);
    }
  }
}
