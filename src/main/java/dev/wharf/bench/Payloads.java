package dev.wharf.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Request bodies of the benchmark: each message body is a 1 KB JSON object. */
final class Payloads {
  static final int MESSAGE_BYTES = 1024;
  private static final String PREFIX = "{\"sent_ns\":";
  private static final String PAD_FIELD = ",\"pad\":\"";
  // Room for the longest sent_ns value, so every message body is exactly MESSAGE_BYTES long.
  private static final int SENT_DIGITS = 20;

  private Payloads() {}

  /** A message body holding {@code sentNs} (a System.nanoTime of the sending process). */
  static String messageBody(long sentNs) {
    String digits = Long.toString(sentNs);
    int pad = MESSAGE_BYTES - PREFIX.length() - SENT_DIGITS - PAD_FIELD.length() - 2;
    StringBuilder sb = new StringBuilder(MESSAGE_BYTES + 16);
    sb.append(PREFIX).append(digits);
    sb.repeat(' ', SENT_DIGITS - digits.length());
    sb.append(PAD_FIELD).repeat('x', pad).append("\"}");
    return sb.toString();
  }

  /** A single-message publish request. */
  static byte[] publish(long sentNs) {
    return ("{\"body\":" + messageBody(sentNs) + "}").getBytes(StandardCharsets.UTF_8);
  }

  /** A batch publish request of {@code n} messages. */
  static byte[] publishBatch(int n, long sentNs) {
    String one = "{\"body\":" + messageBody(sentNs) + "}";
    StringBuilder sb = new StringBuilder(n * (one.length() + 1) + 16);
    sb.append("{\"messages\":[");
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : ",").append(one);
    }
    return sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] receive(int max, String wait) {
    return ("{\"max\":" + max + ",\"wait\":\"" + wait + "\"}").getBytes(StandardCharsets.UTF_8);
  }

  static byte[] ack(List<String> leaseIds) {
    StringBuilder sb = new StringBuilder(32 + leaseIds.size() * 48);
    sb.append("{\"lease_ids\":[");
    for (int i = 0; i < leaseIds.size(); i++) {
      sb.append(i == 0 ? "\"" : ",\"").append(leaseIds.get(i)).append('"');
    }
    return sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }
}
