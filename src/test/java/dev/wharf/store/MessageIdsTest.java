package dev.wharf.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageIdsTest {
  private static final long T = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

  @Test
  void aSequencedIdGivesBackItsSeq() {
    for (long seq : new long[] {0, 1, 31, 32, 1023, 1L << 40, (1L << 60) + 7, Long.MAX_VALUE}) {
      String id = MessageIds.sequenced(T, seq);
      assertThat(id).hasSize(26).matches("[0-9A-HJKMNP-TV-Z]{26}");
      assertThat(MessageIds.seqOf(id)).as("seq %d", seq).isEqualTo(seq);
    }
    assertThatThrownBy(() -> MessageIds.sequenced(T, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void idsSortByTimeThenSeq() {
    List<String> ids = new ArrayList<>();
    ids.add(MessageIds.sequenced(T, 900));
    ids.add(MessageIds.sequenced(T + 1, 5));
    ids.add(MessageIds.sequenced(T + 1, 6));
    ids.add(MessageIds.sequenced(T + 1, 40));
    ids.add(MessageIds.sequenced(T + 60_000, 1));
    assertThat(ids).isSortedAccordingTo(String::compareTo);
    assertThat(MessageIds.random(T + 2)).isGreaterThan(ids.get(3)).isLessThan(ids.get(4));
  }

  @Test
  void theSameSeqAtAnotherTimeIsAnotherId() {
    String a = MessageIds.sequenced(T, 77);
    String b = MessageIds.sequenced(T + 1, 77);
    assertThat(a).isNotEqualTo(b);
    assertThat(MessageIds.seqOf(a)).isEqualTo(MessageIds.seqOf(b)).isEqualTo(77);
  }

  @Test
  void textThatIsNotASequencedIdHasNoSeq() {
    String id = MessageIds.sequenced(T, 12345);
    assertThat(MessageIds.seqOf(null)).isEqualTo(-1);
    assertThat(MessageIds.seqOf("")).isEqualTo(-1);
    assertThat(MessageIds.seqOf(id.substring(1))).isEqualTo(-1);
    assertThat(MessageIds.seqOf(id + "0")).isEqualTo(-1);
    assertThat(MessageIds.seqOf(id.toLowerCase())).isEqualTo(-1);
    // Letters Crockford leaves out, and anything beyond ASCII.
    for (char c : new char[] {'I', 'L', 'O', 'U', '-', 'é'}) {
      assertThat(MessageIds.seqOf(id.substring(0, 25) + c)).as("%s", c).isEqualTo(-1);
      assertThat(MessageIds.seqOf(c + id.substring(1))).as("%s", c).isEqualTo(-1);
    }
    // Bits above the seq's 63: set in random ids, never in sequenced ones.
    assertThat(MessageIds.seqOf(id.substring(0, 10) + "1" + id.substring(11))).isEqualTo(-1);
    assertThat(MessageIds.seqOf(id.substring(0, 13) + "8" + id.substring(14))).isEqualTo(-1);
  }

  @Test
  void randomIdsAreWellFormedAndDistinct() {
    String a = MessageIds.random(T);
    String b = MessageIds.random(T);
    assertThat(a).hasSize(26).matches("[0-9A-HJKMNP-TV-Z]{26}").isNotEqualTo(b);
    assertThat(a.substring(0, 10)).isEqualTo(MessageIds.sequenced(T, 1).substring(0, 10));
  }
}
