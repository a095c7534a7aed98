package dev.wharf.cli;

/**
 * How many terminal columns text takes: what a table pads and cuts by. Counting chars would cut
 * an emoji in half (a surrogate pair) and misalign every row holding CJK text or accents written
 * as combining marks.
 */
final class Columns {
  private Columns() {}

  /** Columns of one code point: 0 for marks and format characters, 2 for wide ones, else 1. */
  static int of(int cp) {
    if (cp == 0x200D) {
      return 0; // the zero-width joiner inside emoji sequences
    }
    switch (Character.getType(cp)) {
      case Character.NON_SPACING_MARK, Character.ENCLOSING_MARK, Character.FORMAT -> {
        return 0;
      }
      default -> {
        return wide(cp) ? 2 : 1;
      }
    }
  }

  /** Columns of a string. */
  static int of(String s) {
    int w = 0;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      w += of(cp);
      i += Character.charCount(cp);
    }
    return w;
  }

  /**
   * At most {@code width} columns of {@code s}, the last an ellipsis when cut; never half a
   * character.
   */
  static String cut(String s, int width) {
    if (of(s) <= width) {
      return s;
    }
    int used = 0;
    int end = 0;
    while (end < s.length()) {
      int cp = s.codePointAt(end);
      int w = of(cp);
      if (used + w > width - 1) {
        break;
      }
      used += w;
      end += Character.charCount(cp);
    }
    return s.substring(0, end) + "…";
  }

  /** East Asian wide and fullwidth ranges, and the emoji blocks terminals draw two columns wide. */
  private static boolean wide(int cp) {
    return cp >= 0x1100 && cp <= 0x115F // Hangul Jamo initials
        || cp >= 0x2E80 && cp <= 0x303E // CJK radicals, symbols and punctuation
        || cp >= 0x3041 && cp <= 0x33FF // kana, CJK compatibility
        || cp >= 0x3400 && cp <= 0x4DBF // CJK extension A
        || cp >= 0x4E00 && cp <= 0x9FFF // CJK unified ideographs
        || cp >= 0xA000 && cp <= 0xA4CF // Yi
        || cp >= 0xAC00 && cp <= 0xD7A3 // Hangul syllables
        || cp >= 0xF900 && cp <= 0xFAFF // CJK compatibility ideographs
        || cp >= 0xFE30 && cp <= 0xFE4F // CJK compatibility forms
        || cp >= 0xFF00 && cp <= 0xFF60 // fullwidth forms
        || cp >= 0xFFE0 && cp <= 0xFFE6
        || cp >= 0x1F300 && cp <= 0x1F64F // pictographs, emoticons
        || cp >= 0x1F900 && cp <= 0x1F9FF // supplemental symbols and pictographs
        || cp >= 0x1FA70 && cp <= 0x1FAFF
        || cp >= 0x20000 && cp <= 0x3FFFD; // CJK extensions B and beyond
  }
}
