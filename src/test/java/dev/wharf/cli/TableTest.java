package dev.wharf.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class TableTest {
  @Test
  void alignsColumnsAndRightAlignsNumbers() {
    StringWriter s = new StringWriter();
    new Table("QUEUE", "READY", "DLQ")
        .row("billing", 3, "billing.dlq")
        .row("a", 1200, null)
        .row("multi\nline", 0, "x")
        .print(new PrintWriter(s));
    assertThat(s.toString())
        .isEqualTo(
            """
            QUEUE       READY  DLQ
            billing         3  billing.dlq
            a            1200  -
            multi line      0  x
            """);
  }

  @Test
  void aTextColumnStaysLeftAlignedWhenItsCellsAreNumbers() {
    StringWriter s = new StringWriter();
    new Table("ID", "BODY").textColumn("BODY").row("a", 3).row("b", 1200).print(new PrintWriter(s));
    assertThat(s.toString())
        .isEqualTo(
            """
            ID  BODY
            a   3
            b   1200
            """);
  }

  @Test
  void wideCharactersArePaddedByTheColumnsTheyTake() {
    StringWriter s = new StringWriter();
    new Table("QUEUE", "READY").row("注文", 3).row("orders", 12).print(new PrintWriter(s));
    assertThat(s.toString())
        .isEqualTo(
            """
            QUEUE   READY
            注文        3
            orders     12
            """);
  }

  @Test
  void headerOnlyWhenEmpty() {
    StringWriter s = new StringWriter();
    Table t = new Table("A", "B");
    assertThat(t.isEmpty()).isTrue();
    t.print(new PrintWriter(s));
    assertThat(s.toString()).isEqualTo("A  B\n");
  }
}
