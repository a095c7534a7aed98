package dev.wharf.config;

import java.util.Collection;

/** "Did you mean" for misspelt keys: the known key within a small edit distance, if any. */
final class Suggest {
  private Suggest() {}

  static String closest(String word, Collection<String> candidates) {
    String best = null;
    int bestDistance = Math.max(2, word.length() / 4) + 1;
    for (String c : candidates) {
      int d = distance(word, c);
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return best;
  }

  // Plain Levenshtein over two rows; keys are short.
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
