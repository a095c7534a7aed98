package dev.wharf.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Lease ids name the message's store sequence (so a settle is a primary-key lookup) followed by
 * random bits (so an old lease of the same message never matches a new one).
 */
public final class LeaseIds {
  private LeaseIds() {}

  public static String next(long seq) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return Long.toString(seq, 36) + "." + Long.toHexString(r.nextLong() | Long.MIN_VALUE);
  }

  /** The sequences the lease ids name, leaving out ids that are not ours. */
  public static List<Long> seqsOf(List<String> leaseIds) {
    List<Long> seqs = new ArrayList<>(leaseIds.size());
    for (String id : leaseIds) {
      long seq = seqOf(id);
      if (seq >= 0) {
        seqs.add(seq);
      }
    }
    return seqs;
  }

  /** The sequence a lease id names, or -1 when it is not one of ours. */
  public static long seqOf(String leaseId) {
    if (leaseId == null) {
      return -1;
    }
    int dot = leaseId.indexOf('.');
    if (dot <= 0 || dot > 13 || leaseId.length() - dot - 1 != 16) {
      return -1;
    }
    try {
      return Long.parseLong(leaseId, 0, dot, 36);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
