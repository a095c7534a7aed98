package dev.wharf.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A plain aligned text table: columns padded to their widest cell as a terminal draws it, numbers
 * on the right.
 */
final class Table {
  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();
  /** Columns of free text, left-aligned even when every cell happens to be a number. */
  private final Set<String> text = new HashSet<>();

  Table(String... headers) {
    this.headers = List.of(headers);
  }

  /** Marks a column as text: a message body of {@code 3} is not a count. */
  Table textColumn(String header) {
    text.add(header);
    return this;
  }

  Table row(Object... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException("expected " + headers.size() + " cells");
    }
    List<String> r = new ArrayList<>(cells.length);
    for (Object c : cells) {
      r.add(c == null ? "-" : Printable.of(oneLine(c.toString())));
    }
    rows.add(r);
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  void print(PrintWriter out) {
    int n = headers.size();
    int[] width = new int[n];
    boolean[] numeric = new boolean[n];
    for (int i = 0; i < n; i++) {
      width[i] = Columns.of(headers.get(i));
      numeric[i] = !rows.isEmpty() && !text.contains(headers.get(i));
      for (List<String> r : rows) {
        width[i] = Math.max(width[i], Columns.of(r.get(i)));
        numeric[i] &= r.get(i).matches("-?\\d+|-");
      }
    }
    out.println(line(headers, width, numeric));
    for (List<String> r : rows) {
      out.println(line(r, width, numeric));
    }
    out.flush();
  }

  private static String line(List<String> cells, int[] width, boolean[] numeric) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      boolean last = i == cells.size() - 1;
      String pad = " ".repeat(width[i] - Columns.of(c));
      if (numeric[i]) {
        b.append(pad).append(c);
      } else {
        b.append(c).append(last ? "" : pad);
      }
      if (!last) {
        b.append("  ");
      }
    }
    return b.toString();
  }

  private static String oneLine(String s) {
    return s.replace('\n', ' ').replace('\r', ' ').replace('\t', ' ');
  }
}
