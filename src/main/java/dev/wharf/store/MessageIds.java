package dev.wharf.store;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Message ids: 26 characters of Crockford base32 holding 128 bits, a millisecond timestamp (48
 * bits) and then 80 more, so ids sort roughly by publish time. A store assigns them as it writes.
 *
 * <p>A store that numbers its rows ({@link #sequenced}) puts the row's number in the last 64 bits
 * and zeros above it, so finding a message by id is a lookup of that number and needs no index on
 * the id text; the lookup then compares the whole id, so made-up text finds nothing. Other stores
 * use {@link #random} bits, as ids did before stores numbered them; such an id may by chance read
 * as a number, which that comparison rejects.
 */
public final class MessageIds {
  private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
  private static final int LENGTH = 26;
  /** Each character's value, -1 for those not in the alphabet. */
  private static final byte[] VALUES = new byte[128];

  static {
    Arrays.fill(VALUES, (byte) -1);
    for (int v = 0; v < ALPHABET.length; v++) {
      VALUES[ALPHABET[v]] = (byte) v;
    }
  }

  private MessageIds() {}

  /** An id of a timestamp and 80 random bits. */
  public static String random(long epochMillis) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return encode(epochMillis, r.nextInt() & 0xFFFF, r.nextLong());
  }

  /** An id of a timestamp and a row number ({@code seq >= 0}), which {@link #seqOf} reads back. */
  public static String sequenced(long epochMillis, long seq) {
    if (seq < 0) {
      throw new IllegalArgumentException("negative seq " + seq);
    }
    return encode(epochMillis, 0, seq);
  }

  /**
   * The row number a {@link #sequenced} id holds, or -1 when the text is not such an id. The
   * alphabet is upper case only: ids are compared as exact text.
   */
  public static long seqOf(String id) {
    if (id == null || id.length() != LENGTH) {
      return -1;
    }
    // The last 16 characters are 80 bits: the top 16 must be zero and the seq non-negative. The
    // first three hold 15 of those 16 bits, so are '0'; the fourth holds the 16th and the seq's
    // top 4 bits, of which the first is its sign: both zero leave a value of at most 7.
    for (int i = 0; i < 10; i++) {
      if (value(id.charAt(i)) < 0) {
        return -1;
      }
    }
    if (id.charAt(10) != '0' || id.charAt(11) != '0' || id.charAt(12) != '0'
        || value(id.charAt(13)) < 0 || value(id.charAt(13)) > 7) {
      return -1;
    }
    long seq = 0;
    for (int i = 13; i < LENGTH; i++) {
      int v = value(id.charAt(i));
      if (v < 0) {
        return -1;
      }
      seq = (seq << 5) | v;
    }
    return seq;
  }

  /**
   * Whether the text has an id's shape (26 characters of the alphabet), which every id a store
   * gave has: other text names no message, and need not reach a store, which may refuse it
   * (PostgreSQL refuses a NUL in any text).
   */
  public static boolean wellFormed(String id) {
    if (id == null || id.length() != LENGTH) {
      return false;
    }
    for (int i = 0; i < LENGTH; i++) {
      if (value(id.charAt(i)) < 0) {
        return false;
      }
    }
    return true;
  }

  /** 48 bits of time, then {@code high16} and {@code low64}: 128 bits, 5 to a character. */
  private static String encode(long epochMillis, int high16, long low64) {
    char[] out = new char[LENGTH];
    long t = epochMillis;
    for (int i = 9; i >= 0; i--) {
      out[i] = ALPHABET[(int) (t & 31)];
      t >>>= 5;
    }
    // The last 16 characters from the right: 12 full from low64 (60 bits), then one of low64's
    // last 4 bits and high16's lowest bit, then 3 of high16's remaining 15 bits.
    long lo = low64;
    for (int i = LENGTH - 1; i >= 14; i--) {
      out[i] = ALPHABET[(int) (lo & 31)];
      lo >>>= 5;
    }
    int hi = high16 & 0xFFFF;
    out[13] = ALPHABET[(int) (lo & 15) | ((hi & 1) << 4)];
    hi >>>= 1;
    for (int i = 12; i >= 10; i--) {
      out[i] = ALPHABET[hi & 31];
      hi >>>= 5;
    }
    return new String(out);
  }

  private static int value(char c) {
    return c < VALUES.length ? VALUES[c] : -1;
  }
}
