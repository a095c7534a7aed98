package dev.wharf.store;

import java.util.List;

/**
 * What a redrive did.
 *
 * @param moved messages moved back to their queue
 * @param skipped ids the request named that no dead message of that queue has (unknown, another
 *     queue's, or not dead), in the order given, each once; empty for a redrive of all
 */
public record Redriven(int moved, List<String> skipped) {
  public Redriven {
    skipped = List.copyOf(skipped);
  }
}
