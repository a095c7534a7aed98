package dev.wharf.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.Store;
import dev.wharf.store.postgres.PostgresSettings;
import dev.wharf.store.postgres.PostgresStore;
import dev.wharf.store.postgres.TestDatabase;
import dev.wharf.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishers and consumers on their own threads against one broker over a real store, checked
 * for the invariants of DESIGN section 3 that must hold under any interleaving (see {@link
 * HistoryChecks} and {@link StoreChecks}). The seed fixes what each thread does, not the order
 * the threads meet in, so a failure names its seed for a rerun that may need a few tries:
 * {@code -Dwharf.concurrency.firstSeed=N -Dwharf.concurrency.seeds=1}. Raise the seeds for a
 * longer search.
 */
class ConcurrentInvariantsTest {
  static final String FIRST_SEED = "wharf.concurrency.firstSeed";
  static final String SEEDS = "wharf.concurrency.seeds";
  /** Two to five seconds a seed; PostgreSQL's two tests share one budget of about 20 s. */
  private static final int SQLITE_SEEDS = 3;
  private static final int POSTGRES_SEEDS = 2;
  private static final int TWO_NODE_SEEDS = 1;

  @TempDir Path dir;

  @Test
  void sqliteKeepsTheInvariantsUnderConcurrency() throws InterruptedException {
    runSeeds(SQLITE_SEEDS, seed -> List.of(new SqliteStore(dir.resolve("seed-" + seed + ".db"))));
  }

  @Test
  void postgresKeepsTheInvariantsUnderConcurrency() throws InterruptedException {
    runSeeds(POSTGRES_SEEDS, seed -> List.of(new PostgresStore(TestDatabase.freshSchema(8))));
  }

  /** Two nodes on one database: claims, settles and reapers of one race the other's. */
  @Test
  void postgresKeepsTheInvariantsAcrossTwoNodes() throws InterruptedException {
    runSeeds(TWO_NODE_SEEDS, seed -> {
      PostgresSettings first = TestDatabase.freshSchema(6);
      PostgresSettings second = TestDatabase.settingsFor(TestDatabase.schemaOf(first), 6);
      return List.of(new PostgresStore(first), new PostgresStore(second));
    });
  }

  private static void runSeeds(int defaultSeeds, LongFunction<List<Store>> stores)
      throws InterruptedException {
    long first = Long.getLong(FIRST_SEED, 1);
    int seeds = Integer.getInteger(SEEDS, defaultSeeds);
    for (long seed = first; seed < first + seeds; seed++) {
      long started = System.nanoTime();
      try (StressRun run = new StressRun(seed, stores.apply(seed))) {
        List<String> problems;
        try {
          problems = run.run();
        } catch (RuntimeException e) {
          throw new AssertionError("seed " + seed + " failed to run", e);
        }
        assertThat(problems)
            .as("seed %d (rerun with -D%s=%d -D%s=1)", seed, FIRST_SEED, seed, SEEDS)
            .isEmpty();
        System.out.printf("%s in %d ms%n", run.summary(),
            (System.nanoTime() - started) / 1_000_000);
      }
    }
  }
}
