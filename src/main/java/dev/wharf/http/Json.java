package dev.wharf.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The one shared, strict JSON mapper of the HTTP layer. */
public final class Json {
  public static final ObjectMapper MAPPER =
      JsonMapper.builder(
              // Handlers run on a fresh virtual thread each: Jackson's default thread-local
              // buffer pool would allocate new buffers for every request.
              JsonFactory.builder()
                  .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
                  // The body is bounded by server.max_body (up to 1 GB); a string or name within
                  // it is no larger a risk than the body, and a text or bytes message is one
                  // string as long as the message.
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxStringLength(Integer.MAX_VALUE)
                          .maxNameLength(Integer.MAX_VALUE)
                          .build())
                  .build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          // Keeps published JSON numbers exactly as sent when they are written back out.
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();
  public static final JsonFactory FACTORY = MAPPER.getFactory();

  private static final Pattern NON_STANDARD = Pattern.compile("Non-standard token '([^']*)'.*");

  private Json() {}

  /**
   * What a client is told about JSON it sent that could not be read. Jackson's own texts name its
   * configuration switches and classes, which mean nothing to a client and say too much about the
   * server: they are rewritten or cut short, and the place in the body is added.
   */
  public static String malformed(JacksonException e) {
    if (e instanceof StreamConstraintsException) {
      return constraint(e.getOriginalMessage());
    }
    if (e instanceof MismatchedInputException && String.valueOf(e.getOriginalMessage())
        .startsWith("Trailing token")) {
      return "malformed JSON: more than one value in the body";
    }
    String text = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    Matcher m = NON_STANDARD.matcher(text);
    if (m.matches()) {
      text = m.group(1) + " is not a JSON number";
    } else {
      text = cut(text, ": enable `");
      text = cut(text, " (start marker at ");
      text = cut(text, " (not recognized as one since ");
      if (text.indexOf('`') >= 0 || text.isBlank()) {
        text = "the body is not valid JSON";
      }
    }
    JsonLocation at = e.getLocation();
    if (at != null && at.getLineNr() > 0 && at.getColumnNr() > 0) {
      text += " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    }
    return "malformed JSON: " + text;
  }

  private static String constraint(String message) {
    String text = message == null ? "" : message;
    if (text.startsWith("Document nesting depth")) {
      return "JSON nested deeper than "
          + FACTORY.streamReadConstraints().getMaxNestingDepth()
          + " levels";
    }
    if (text.startsWith("Number value length")) {
      return "a JSON number longer than "
          + FACTORY.streamReadConstraints().getMaxNumberLength()
          + " characters";
    }
    if (text.startsWith("String value length")) {
      return "a JSON string longer than "
          + FACTORY.streamReadConstraints().getMaxStringLength()
          + " characters";
    }
    return "the JSON is larger than the server reads";
  }

  private static String cut(String text, String marker) {
    int i = text.indexOf(marker);
    return i < 0 ? text : text.substring(0, i);
  }

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
