package dev.wharf.core;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Message ids: 26 characters of Crockford base32, a millisecond timestamp then 80 random bits, so
 * ids sort roughly by publish time and never collide in practice.
 */
public final class Ids {
  private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();

  private Ids() {}

  public static String messageId(long epochMillis) {
    char[] out = new char[26];
    long t = epochMillis;
    for (int i = 9; i >= 0; i--) {
      out[i] = ALPHABET[(int) (t & 31)];
      t >>>= 5;
    }
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long hi = r.nextLong();
    long lo = r.nextLong();
    for (int i = 10; i < 26; i++) {
      long src = i < 18 ? hi : lo;
      out[i] = ALPHABET[(int) ((src >>> ((i % 8) * 5)) & 31)];
    }
    return new String(out);
  }
}
