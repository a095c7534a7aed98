package dev.wharf.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Collects every problem found in a config file, each named by its path. */
final class Problems {
  /** A problem and the path it is about; null when it is about the file as a whole. */
  private record Item(String path, String line) {}

  private final List<Item> items = new ArrayList<>();
  private final Set<String> settled = new HashSet<>();

  void add(String path, String message) {
    if (settled.contains(path)) {
      return;
    }
    items.add(new Item(path, path.isEmpty() ? message : path + ": " + message));
  }

  /**
   * Reports a problem and keeps quiet about the same path afterwards: a value that could not be
   * interpolated would otherwise be reported a second time by its type check.
   */
  void addFinal(String path, String message) {
    add(path, message);
    settled.add(path);
  }

  /** A problem the core phrased as {@code field: reason}, of the field below {@code parent}. */
  void addOfField(String parent, String problem) {
    int colon = problem.indexOf(": ");
    if (colon < 0) {
      add(parent, problem);
      return;
    }
    add(parent + "." + problem.substring(0, colon), problem.substring(colon + 2));
  }

  /** A problem of the file as a whole, already phrased with the file's name. */
  void add(String line) {
    items.add(new Item(null, line));
  }

  boolean isEmpty() {
    return items.isEmpty();
  }

  /**
   * Every problem in the order of the paths in {@code root}, the file as read; problems of one
   * path keep the order they were found in.
   */
  List<String> inFileOrder(JsonNode root) {
    FileOrder order = new FileOrder(root);
    return items.stream()
        .sorted(Comparator.comparingInt(i -> order.of(i.path())))
        .map(Item::line)
        .toList();
  }
}
