package dev.wharf.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.wharf.store.LeaseOutcome.Outcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecentSettlementsTest {
  private static final long WINDOW = 300_000;
  private static final long NOW = 1_700_000_000_000L;
  private final RecentSettlements recent = new RecentSettlements(WINDOW);

  @Test
  void aLeaseOutlivesNewerLeasesOfItsSetUntilTheSetIsFull() {
    List<String> same = leasesOfOneSet("q", RecentSettlements.WAYS + 1);
    recent.remember("q", same.get(0), Outcome.ACKED, NOW);
    for (int i = 1; i <= 3; i++) {
      recent.remember("q", same.get(i), Outcome.RETRIED, NOW + i);
    }
    // Three later leases fell where it is, and it is still there: a repeat finds it.
    assertThat(recent.recall("q", same.get(0), NOW + 10)).isEqualTo(Outcome.ACKED);

    recent.remember("q", same.get(RecentSettlements.WAYS), Outcome.DEAD, NOW + 20);
    // One more: the oldest goes, the rest stay. Memory is fixed, so something must.
    assertThat(recent.recall("q", same.get(0), NOW + 21)).isNull();
    for (int i = 1; i <= RecentSettlements.WAYS; i++) {
      assertThat(recent.recall("q", same.get(i), NOW + 21)).isNotNull();
    }
  }

  @Test
  void aLeaseRememberedAgainKeepsOneSlotAndItsLatestOutcome() {
    List<String> same = leasesOfOneSet("q", RecentSettlements.WAYS);
    for (int i = 0; i < RecentSettlements.WAYS; i++) {
      recent.remember("q", same.get(i), Outcome.ACKED, NOW + i);
    }
    recent.remember("q", same.get(1), Outcome.DEAD, NOW + 10);
    // Remembered again in place: no other lease of the set was pushed out.
    for (int i = 0; i < RecentSettlements.WAYS; i++) {
      assertThat(recent.recall("q", same.get(i), NOW + 11))
          .isEqualTo(i == 1 ? Outcome.DEAD : Outcome.ACKED);
    }
  }

  @Test
  void anOutcomeIsForgottenAfterTheWindowAndKnownOnlyToItsQueue() {
    recent.remember("q", "lease-1", Outcome.ACKED, NOW);
    assertThat(recent.recall("q", "lease-1", NOW + WINDOW)).isEqualTo(Outcome.ACKED);
    assertThat(recent.recall("q", "lease-1", NOW + WINDOW + 1)).isNull();
    assertThat(recent.recall("other", "lease-1", NOW)).isNull();
    assertThat(recent.recall("q", "lease-2", NOW)).isNull();
  }

  @Test
  void anOutcomeRememberedAtTheEpochIsRecalled() {
    recent.remember("q", "lease-0", Outcome.ACKED, 0);
    assertThat(recent.recall("q", "lease-0", 1)).isEqualTo(Outcome.ACKED);
  }

  /** {@code n} lease ids of one queue whose hashes fall in one set. */
  private static List<String> leasesOfOneSet(String queue, int n) {
    int target = RecentSettlements.set(queue, "lease-0");
    List<String> out = new ArrayList<>(List.of("lease-0"));
    for (int i = 1; out.size() < n; i++) {
      String id = "lease-" + i;
      if (RecentSettlements.set(queue, id) == target) {
        out.add(id);
      }
    }
    return out;
  }
}
