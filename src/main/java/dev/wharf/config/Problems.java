package dev.wharf.config;

import java.util.ArrayList;
import java.util.List;

/** Collects every problem found in a config file, each named by its path, in reading order. */
final class Problems {
  private final List<String> items = new ArrayList<>();

  void add(String path, String message) {
    items.add(path.isEmpty() ? message : path + ": " + message);
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
