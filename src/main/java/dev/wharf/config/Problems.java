package dev.wharf.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Collects every problem found in a config file, each named by its path, in reading order. */
final class Problems {
  private final List<String> items = new ArrayList<>();
  private final Set<String> settled = new HashSet<>();

  void add(String path, String message) {
    if (settled.contains(path)) {
      return;
    }
    items.add(path.isEmpty() ? message : path + ": " + message);
  }

  /**
   * Reports a problem and keeps quiet about the same path afterwards: a value that could not be
   * interpolated would otherwise be reported a second time by its type check.
   */
  void addFinal(String path, String message) {
    add(path, message);
    settled.add(path);
  }

  /** A problem already phrased with its path. */
  void add(String line) {
    items.add(line);
  }

  boolean isEmpty() {
    return items.isEmpty();
  }

  List<String> list() {
    return List.copyOf(items);
  }
}
