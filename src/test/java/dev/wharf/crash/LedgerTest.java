package dev.wharf.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The crash test's judge must itself catch each broken promise. */
class LedgerTest {

  @Test
  void aPublishedMessageThatIsNeitherAckedNorLeftIsLost() {
    Ledger l = new Ledger();
    l.published.addAll(Set.of(1L, 2L, 3L, 4L));
    l.confirmAck(1, "a", 10);
    l.ackUnknown.add(2L);
    assertThat(l.problems(Set.of(3L))).singleElement().asString().contains("1 published messages lost", "[4]");
    assertThat(l.problems(Set.of(3L, 4L))).isEmpty();
  }

  @Test
  void aDeliveryAskedForAfterAConfirmedAckIsABrokenPromise() {
    Ledger l = new Ledger();
    l.published.add(1L);
    l.deliveries.add(new Ledger.Delivery(1, "a", 5, "q"));
    l.confirmAck(1, "a", 10);
    // asked before the ack was confirmed: a race the server may legitimately lose to the ack
    l.deliveries.add(new Ledger.Delivery(1, "b", 9, "q"));
    assertThat(l.problems(Set.of())).isEmpty();
    l.deliveries.add(new Ledger.Delivery(1, "c", 11, "q"));
    assertThat(l.problems(Set.of())).singleElement().asString().contains("handed out again");
  }

  @Test
  void anAckedMessageStillPresentOrAckedTwiceIsABrokenPromise() {
    Ledger l = new Ledger();
    l.published.addAll(Set.of(1L, 2L));
    l.confirmAck(1, "a", 10);
    assertThat(l.problems(Set.of(1L, 2L))).singleElement().asString().contains("still present");
    l.confirmAck(2, "b", 10);
    l.confirmAck(2, "c", 12);
    assertThat(l.problems(Set.of())).singleElement().asString().contains("acked under lease b");
  }

  @Test
  void aDeliveryOfSomethingNeverPublishedIsReported() {
    Ledger l = new Ledger();
    l.publishUnknown.add(1L);
    l.deliveries.add(new Ledger.Delivery(1, "a", 5, "q"));
    assertThat(l.problems(Set.of(1L))).isEmpty();
    l.deliveries.add(new Ledger.Delivery(7, "b", 5, "q"));
    assertThat(l.problems(Set.of(1L))).singleElement().asString().contains("never published");
  }
}
