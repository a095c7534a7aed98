package dev.wharf.http;

/**
 * Strict UTF-8 (RFC 3629), and text that UTF-8 can carry. The JSON parser accepts overlong forms,
 * encoded surrogates and code points past U+10FFFF; decoded leniently they turned into other
 * characters ({@code C0 AF} into {@code /}) or into {@code ?}, and stored raw they made answers
 * that are not UTF-8. A JSON escape can still spell half a surrogate pair (backslash, u, D800),
 * which turns into {@code ?} on the way to storage, so two different keys became one.
 */
public final class Utf8 {
  private Utf8() {}

  /** The offset of the first byte that is not part of well-formed UTF-8, or -1. */
  public static int firstInvalid(byte[] b) {
    int i = 0;
    int n = b.length;
    while (i < n) {
      int c = b[i];
      if (c >= 0) {
        i++;
        continue;
      }
      c &= 0xff;
      int need;
      int min2;
      int max2 = 0xbf;
      if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
        min2 = 0x80;
      } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        // E0 below A0 is overlong; ED from A0 is a surrogate.
        min2 = c == 0xe0 ? 0xa0 : 0x80;
        max2 = c == 0xed ? 0x9f : 0xbf;
      } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        // F0 below 90 is overlong; F4 from 90 is past U+10FFFF.
        min2 = c == 0xf0 ? 0x90 : 0x80;
        max2 = c == 0xf4 ? 0x8f : 0xbf;
      } else {
        return i;
      }
      if (i + need >= n) {
        return i;
      }
      int second = b[i + 1] & 0xff;
      if (second < min2 || second > max2) {
        return i;
      }
      for (int k = 2; k <= need; k++) {
        if ((b[i + k] & 0xc0) != 0x80) {
          return i;
        }
      }
      i += need + 1;
    }
    return -1;
  }

  /** The index of the first surrogate in {@code s} without its other half, or -1. */
  public static int loneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      } else if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
