package dev.wharf.store.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Message counts kept in the {@code counters} table so depth never needs {@code COUNT(*)}. Each
 * transaction sums its changes per (queue, state, origin) and writes them with one statement just
 * before it commits, so a rolled-back batch leaves no trace and counts always match the rows.
 *
 * <p>Each writer adds into its own stripe of a cell, so concurrent writers (lanes of this node,
 * other nodes) seldom wait on one another's counter row; a read sums the stripes. Cells are written
 * in one fixed order so two writers can never deadlock on them.
 */
final class PgCounters {
  static final int STRIPES = 16;

  private PgCounters() {}

  /** Counts of one queue by state code (READY, LEASED, EXPIRED). */
  static long[] byState(Connection c, String queue) throws SQLException {
    long[] out = new long[3];
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT state, sum(n) FROM counters WHERE queue = ? GROUP BY state")) {
      ps.setString(1, queue);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out[rs.getInt(1)] = Math.max(0, rs.getLong(2));
        }
      }
    }
    return out;
  }

  static long dead(Connection c, String dlq, String origin) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT coalesce(sum(n), 0) FROM counters WHERE queue = ? AND origin = ?")) {
      ps.setString(1, dlq);
      ps.setString(2, origin);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Math.max(0, rs.getLong(1)) : 0;
      }
    }
  }

  /** The changes of one transaction. */
  static final class Delta {
    private record Cell(String queue, int state, String origin) {}

    private static final Comparator<Cell> ORDER =
        Comparator.comparing(Cell::queue)
            .thenComparingInt(Cell::state)
            .thenComparing(Cell::origin);

    private final int stripe;
    private final Map<Cell, Long> changes = new HashMap<>();

    Delta(int stripe) {
      this.stripe = Math.floorMod(stripe, STRIPES);
    }

    void add(String queue, int state, String origin, long n) {
      changes.merge(new Cell(queue, state, origin == null ? "" : origin), n, Long::sum);
    }

    void move(String fromQueue, int fromState, String fromOrigin, String toQueue, int toState,
        String toOrigin) {
      add(fromQueue, fromState, fromOrigin, -1);
      add(toQueue, toState, toOrigin, 1);
    }

    void clear() {
      changes.clear();
    }

    /** Drops the changes to a queue's own cells (not its cells as another queue's origin). */
    void forget(String queue) {
      changes.keySet().removeIf(c -> c.queue().equals(queue));
    }

    /** Drops the changes to a queue's cells for messages that came from {@code origin}. */
    void forget(String queue, String origin) {
      changes.keySet().removeIf(c -> c.queue().equals(queue) && c.origin().equals(origin));
    }

    void flush(PgTx tx) throws SQLException {
      List<Cell> cells = new ArrayList<>();
      changes.forEach((cell, n) -> {
        if (n != 0) {
          cells.add(cell);
        }
      });
      if (cells.isEmpty()) {
        return;
      }
      cells.sort(ORDER);
      int size = cells.size();
      String[] queues = new String[size];
      Integer[] states = new Integer[size];
      String[] origins = new String[size];
      Long[] deltas = new Long[size];
      for (int i = 0; i < size; i++) {
        Cell c = cells.get(i);
        queues[i] = c.queue();
        states[i] = c.state();
        origins[i] = c.origin();
        deltas[i] = changes.get(c);
      }
      PreparedStatement ps =
          tx.prepare(
              "INSERT INTO counters(queue, state, origin, stripe, n)"
                  + " SELECT q, s, o, ?, d FROM unnest(?::text[], ?::int4[], ?::text[], ?::int8[])"
                  + " AS u(q, s, o, d)"
                  + " ON CONFLICT (queue, state, origin, stripe)"
                  + " DO UPDATE SET n = counters.n + EXCLUDED.n");
      ps.setInt(1, stripe);
      ps.setArray(2, tx.array("text", queues));
      ps.setArray(3, tx.array("int4", states));
      ps.setArray(4, tx.array("text", origins));
      ps.setArray(5, tx.array("int8", deltas));
      ps.executeUpdate();
      changes.clear();
    }
  }
}
