package dev.wharf.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the bench needs from a receive answer: lease ids to ack and the send times embedded in
 * the bodies. Read with a streaming parser that skips everything else (the 1 KB pads are never
 * decoded), to keep the client's CPU share small.
 */
record Received(List<String> leaseIds, long[] sentNs) {
  private static final JsonFactory JSON = new JsonFactory();

  int size() {
    return leaseIds.size();
  }

  static Received parse(byte[] body) throws IOException {
    List<String> leases = new ArrayList<>();
    long[] sent = new long[8];
    int nSent = 0;
    try (JsonParser p = JSON.createParser(body)) {
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        if (t != JsonToken.FIELD_NAME) {
          continue;
        }
        String name = p.currentName();
        JsonStreamContext ctx = p.getParsingContext();
        if (name.equals("lease_id") && isMessage(ctx)) {
          p.nextToken();
          leases.add(p.getText());
        } else if (name.equals("sent_ns") && isMessage(ctx.getParent())
            && "body".equals(ctx.getParent().getCurrentName())) {
          p.nextToken();
          if (nSent == sent.length) {
            sent = Arrays.copyOf(sent, nSent * 2);
          }
          sent[nSent++] = p.getLongValue();
        }
      }
    }
    return new Received(leases, Arrays.copyOf(sent, nSent));
  }

  /** True for the context of an object in the top-level {@code messages} array. */
  private static boolean isMessage(JsonStreamContext ctx) {
    JsonStreamContext array = ctx == null ? null : ctx.getParent();
    JsonStreamContext root = array == null ? null : array.getParent();
    return ctx.inObject() && array != null && array.inArray() && root != null
        && root.inObject() && "messages".equals(root.getCurrentName())
        && root.getParent() != null && root.getParent().inRoot();
  }
}
