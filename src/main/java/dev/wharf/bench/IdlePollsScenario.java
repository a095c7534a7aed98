package dev.wharf.bench;

import dev.wharf.loopback.HttpConn;
import dev.wharf.loopback.MiniHttp;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code idle-polls}: N long-polls (wait 30 s) parked at once on an empty queue. Reports how many
 * the server held at the same time and what they cost it in resident memory.
 */
final class IdlePollsScenario {
  // Connects in flight at once: a burst of thousands would overflow the server's accept backlog.
  private static final int OPENING_AT_ONCE = 128;
  private static final long OPEN_TIMEOUT_NS = 60_000_000_000L;
  private static final double MAX_HOLD_SECONDS = 25; // below the 30 s wait, so none time out

  private IdlePollsScenario() {}

  /**
   * @param afterLoad the scenarios of {@code all} ran on this server first: its heap has grown
   *     with them, so the RSS says more about that load than about the polls
   */
  static Result run(Target target, Options o, boolean afterLoad) throws IOException {
    long pid = o.serverPid();
    if (pid <= 0) {
      System.err.println("idle-polls: server pid not found from port " + target.port()
          + "; give --server-pid to report its memory");
    }
    String queue = target.createQueue("idle-polls");
    String path = "/v1/queues/" + queue + "/receive";
    byte[] body = Payloads.receive(1, "30s");
    int n = o.polls();
    long rssBefore = ServerProcess.rssKb(pid);
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    Map<String, Integer> answers = new ConcurrentHashMap<>();
    Semaphore opening = new Semaphore(OPENING_AT_ONCE);
    List<MiniHttp> conns = new ArrayList<>(n);
    List<Thread> threads = new ArrayList<>(n);
    // Set once the hold is over: closing our own sockets then is the way out, not an error.
    AtomicInteger ending = new AtomicInteger();
    long started = System.nanoTime();
    try {
      for (int i = 0; i < n; i++) {
        MiniHttp conn = new MiniHttp(target.port(), target.token(), 1024);
        conns.add(conn);
        threads.add(Thread.ofVirtual().start(() -> {
          try {
            opening.acquire();
            try {
              conn.write("POST", path, body);
              sent.incrementAndGet();
            } finally {
              opening.release();
            }
            HttpConn.Response r = conn.read();
            answered.incrementAndGet();
            answers.merge(Integer.toString(r.status()), 1, Integer::sum);
          } catch (IOException e) {
            if (ending.get() == 0) {
              failed.incrementAndGet();
              answers.merge("io " + e.getClass().getSimpleName(), 1, Integer::sum);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }));
      }
      while (sent.get() + failed.get() < n && System.nanoTime() - started < OPEN_TIMEOUT_NS) {
        Workers.pause(50);
      }
      double openSeconds = (System.nanoTime() - started) / 1e9;
      // Hold, sampling how many are parked and the server's memory.
      long holdNs = (long) (Math.min(o.seconds(), MAX_HOLD_SECONDS) * 1e9);
      long holdStart = System.nanoTime();
      int maxHeld = 0;
      long maxRss = -1;
      while (System.nanoTime() - holdStart < holdNs) {
        maxHeld = Math.max(maxHeld, sent.get() - answered.get() - failed.get());
        maxRss = Math.max(maxRss, ServerProcess.rssKb(pid));
        Workers.pause(250);
      }
      int heldAtEnd = sent.get() - answered.get() - failed.get();
      long endRss = ServerProcess.rssKb(pid);
      long serverSockets = ServerProcess.socketCount(pid);
      ending.set(1);
      conns.forEach(MiniHttp::close);
      Workers.joinAll(threads);

      Result r = new Result("idle-polls").put("polls", n).put("sent", sent.get())
          .put("held_max", maxHeld).put("held_at_end", heldAtEnd)
          .put("open_seconds", Result.round(openSeconds)).put("answers", answers);
      r.line(String.format("%d long-polls asked, %d sent in %.1f s, %d held at once (%d at the"
          + " end), answered early: %s", n, sent.get(), openSeconds, maxHeld, heldAtEnd, answers));
      if (serverSockets >= 0) {
        r.put("server_sockets_at_end", serverSockets);
        r.line("server has " + serverSockets + " sockets open at the end of the hold");
      }
      if (rssBefore > 0 && maxRss > 0) {
        double perPollKb = maxHeld > 0 ? (maxRss - rssBefore) / (double) maxHeld : 0;
        r.put("server_pid", pid).put("rss_before_mb", Result.round(rssBefore / 1024.0))
            .put("rss_held_mb", Result.round(maxRss / 1024.0))
            .put("rss_end_mb", Result.round(endRss / 1024.0))
            .put("kb_per_poll", Result.round(perPollKb));
        // The peak is the figure; the end shows what was transient (the JIT's scratch memory, a
        // young generation grown while the polls arrived).
        r.line(String.format("server RSS %.1f MB before, %.1f MB holding them at most (%.1f KB"
            + " per poll), %.1f MB at the end of the hold",
            rssBefore / 1024.0, maxRss / 1024.0, perPollKb, endRss / 1024.0));
        if (afterLoad) {
          r.line("(after the scenarios above, which grew the server's heap; for the RSS of polls"
              + " alone, run idle-polls on a fresh server)");
        }
      }
      return r;
    } finally {
      ending.set(1);
      conns.forEach(MiniHttp::close);
      target.deleteQueue(queue);
    }
  }
}
