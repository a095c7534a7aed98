package dev.wharf.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;

/** The one shared, strict JSON mapper of the HTTP layer. */
public final class Json {
  public static final ObjectMapper MAPPER =
      JsonMapper.builder(
              // Handlers run on a fresh virtual thread each: Jackson's default thread-local
              // buffer pool would allocate new buffers for every request.
              JsonFactory.builder()
                  .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
                  .build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          // Keeps published JSON numbers exactly as sent when they are written back out.
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();
  public static final JsonFactory FACTORY = MAPPER.getFactory();

  private Json() {}

  /** True when the bytes are exactly one JSON value, so they can be embedded raw. */
  public static boolean isValid(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return false;
    }
    try (JsonParser p = FACTORY.createParser(bytes)) {
      if (p.nextToken() == null) {
        return false;
      }
      p.skipChildren();
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }

  /** Same as {@link #isValid(byte[])} for text. */
  public static boolean isValid(String text) {
    if (text == null || text.isEmpty()) {
      return false;
    }
    try (JsonParser p = FACTORY.createParser(text)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return false;
      }
      p.skipChildren();
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }
}
