package dev.wharf.http;

import static dev.wharf.http.JsonPieces.arr;
import static dev.wharf.http.JsonPieces.obj;
import static dev.wharf.http.JsonPieces.raw;
import static dev.wharf.http.JsonPieces.str;

import dev.wharf.http.JsonPieces.Raw;
import dev.wharf.http.JsonPieces.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * For each kind of field of the native API, values that docs/api.md says are refused: of the
 * wrong JSON type, out of range, or text that is no text. Every one is a 400 wherever it is put.
 */
final class BadValues {
  /** A value and what it is, for the failure message. */
  record Bad(String what, Value value) {}

  /** A field of a body: how to spoil its value, and whether leaving it out or null is refused. */
  record Field(String name, List<Bad> bad, boolean required, boolean nullRefused) {
    static Field optional(String name, List<Bad> bad) {
      return new Field(name, bad, false, false);
    }

    static Field required(String name, List<Bad> bad) {
      return new Field(name, bad, true, true);
    }
  }

  private BadValues() {}

  private static final List<Bad> NOT_TEXT =
      List.of(
          new Bad("number", raw("5")),
          new Bad("bool", raw("true")),
          new Bad("array", arr(str("a"))),
          new Bad("object", obj("a", str("b"))));

  /** Half a surrogate pair, spelt as escapes: no character, so no text. */
  private static final List<Bad> LONE_SURROGATES =
      List.of(
          new Bad("lone high surrogate", raw("\"a\\ud800\"")),
          new Bad("lone low surrogate", raw("\"\\udc00b\"")),
          new Bad("two highs", raw("\"\\ud83d\\ud83d\"")));

  /** Bytes that are not well-formed UTF-8 inside a string: overlong, surrogate, past U+10FFFF. */
  private static final List<Bad> NOT_UTF8 =
      List.of(
          new Bad("overlong slash", bytes('"', 0xc0, 0xaf, '"')),
          new Bad("encoded surrogate", bytes('"', 'a', 0xed, 0xa0, 0x80, '"')),
          new Bad("past U+10FFFF", bytes('"', 0xf4, 0x90, 0x80, 0x80, '"')),
          new Bad("lone continuation", bytes('"', 0x80, '"')),
          new Bad("cut sequence", bytes('"', 0xe2, 0x82, '"')),
          new Bad("byte FF", bytes('"', 0xff, '"')));

  private static Raw bytes(int... b) {
    byte[] out = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (byte) b[i];
    }
    return new Raw(out);
  }

  /** Text of {@code min}..{@code max} characters ({@code max} 0: unbounded). */
  static List<Bad> text(int min, int max, boolean nulRefused) {
    List<Bad> out = new ArrayList<>(NOT_TEXT);
    out.addAll(LONE_SURROGATES);
    out.addAll(NOT_UTF8);
    if (min > 0) {
      out.add(new Bad("empty", str("")));
    }
    if (max > 0) {
      out.add(new Bad("one char too long", str("x".repeat(max + 1))));
      out.add(new Bad("astral, one char too long", str("\uD83D\uDE00".repeat(max + 1))));
    }
    if (nulRefused) {
      out.add(new Bad("NUL", raw("\"a\\u0000b\"")));
    }
    return out;
  }

  /**
   * A duration within [minSeconds, maxSeconds], as a string or a number of seconds; {@code
   * maxSeconds} is the longest whole number of seconds taken.
   */
  static List<Bad> duration(long minSeconds, long maxSeconds, String... alsoBad) {
    List<Bad> out = new ArrayList<>();
    for (String s : alsoBad) {
      out.add(new Bad("refused here", str(s)));
    }
    out.add(new Bad("bool", raw("false")));
    out.add(new Bad("array", arr(str("30s"))));
    out.add(new Bad("object", obj("s", raw("30"))));
    out.add(new Bad("fraction", raw("1.5")));
    out.add(new Bad("1e400", raw("1e400")));
    out.add(new Bad("exponent string", str("1e3s")));
    out.add(new Bad("fraction string", str("1.5s")));
    out.add(new Bad("no number", str("s")));
    out.add(new Bad("empty string", str("")));
    out.add(new Bad("unknown unit", str("10w")));
    out.add(new Bad("words", str("soon")));
    out.add(new Bad("arabic digits", str("\u0663s")));
    out.add(new Bad("negative", raw("-1")));
    out.add(new Bad("negative string", str("-5s")));
    out.add(new Bad("huge number", raw("1" + "0".repeat(30))));
    out.add(new Bad("1001 digits", raw("9".repeat(1001))));
    out.add(new Bad("absurd days", str("999999999999d")));
    out.add(new Bad("13 digits", str("1234567890123s")));
    out.add(new Bad("just past the bound", str((maxSeconds + 1) + "s")));
    out.add(new Bad("just past the bound, number", raw(Long.toString(maxSeconds + 1))));
    // A bound may be open (a delay shorter than a ttl of 1h): past the next whole second.
    out.add(new Bad("past the bound in ms", str(((maxSeconds + 1) * 1000 + 1) + "ms")));
    if (minSeconds > 0) {
      out.add(new Bad("zero", str("0s")));
      out.add(new Bad("minus zero", raw("-0")));
      out.add(new Bad("below the bound in ms", str((minSeconds * 1000 - 1) + "ms")));
    }
    out.addAll(LONE_SURROGATES);
    out.addAll(NOT_UTF8);
    return out;
  }

  /** A JSON integer within [min, max]. */
  static List<Bad> integer(long min, long max) {
    List<Bad> out = new ArrayList<>();
    out.add(new Bad("string", str("5")));
    out.add(new Bad("bool", raw("true")));
    out.add(new Bad("array", arr(raw("5"))));
    out.add(new Bad("object", obj("n", raw("5"))));
    out.add(new Bad("fraction", raw("1.5")));
    out.add(new Bad("1e400", raw("1e400")));
    out.add(new Bad("below", raw(Long.toString(min - 1))));
    out.add(new Bad("above", raw(Long.toString(max + 1))));
    out.add(new Bad("2^31", raw("2147483648")));
    out.add(new Bad("2^63", raw("9223372036854775808")));
    out.add(new Bad("-2^63-1", raw("-9223372036854775809")));
    out.add(new Bad("1001 digits", raw("9".repeat(1001))));
    out.add(new Bad("NaN", raw("NaN")));
    out.add(new Bad("leading zero", raw("05")));
    out.add(new Bad("plus sign", raw("+5")));
    if (min > 0) {
      out.add(new Bad("minus zero", raw("-0")));
    }
    return out;
  }

  static List<Bad> bool() {
    return List.of(
        new Bad("string", str("true")),
        new Bad("number", raw("1")),
        new Bad("zero", raw("0")),
        new Bad("array", arr(raw("true"))),
        new Bad("object", obj()),
        new Bad("capitalised", raw("True")));
  }

  /** An array of 1..{@code max} strings, each refused as {@code element} says. */
  static List<Bad> textList(int max, List<Bad> element) {
    List<Bad> out = new ArrayList<>();
    out.add(new Bad("a string", str("a")));
    out.add(new Bad("number", raw("1")));
    out.add(new Bad("object", obj("a", str("b"))));
    out.add(new Bad("empty", arr()));
    out.add(new Bad("number in it", arr(str("a"), raw("1"))));
    out.add(new Bad("null in it", arr(raw("null"))));
    out.add(new Bad("array in it", arr(arr(str("a")))));
    String many =
        IntStream.rangeClosed(0, max).mapToObj(i -> "\"" + i + "\"")
            .collect(Collectors.joining(","));
    out.add(new Bad((max + 1) + " distinct", raw("[" + many + "]")));
    for (Bad e : element) {
      out.add(new Bad("element " + e.what(), arr(str("ok"), e.value())));
    }
    return out;
  }

  /** Consumer tokens: presentable ASCII, no control, no edge spaces (api.md, Auth). */
  static List<Bad> tokens() {
    List<Bad> out = new ArrayList<>(textList(0, List.of()).subList(0, 3));
    out.add(new Bad("number in it", arr(raw("1"))));
    out.add(new Bad("empty token", arr(str(""))));
    out.add(new Bad("leading space", arr(str(" tok"))));
    out.add(new Bad("trailing space", arr(str("tok "))));
    out.add(new Bad("control char", arr(raw("\"a\\u0001b\""))));
    out.add(new Bad("tab", arr(raw("\"a\\tb\""))));
    out.add(new Bad("beyond ASCII", arr(str("caf\u00e9"))));
    out.add(new Bad("lone surrogate", arr(raw("\"\\ud800\""))));
    return out;
  }

  /** Message headers: an object of strings, names non-empty, no control characters. */
  static List<Bad> headers() {
    return List.of(
        new Bad("string", str("x")),
        new Bad("array", arr(str("x"))),
        new Bad("number value", obj("a", raw("1"))),
        new Bad("null value", obj("a", raw("null"))),
        new Bad("object value", obj("a", obj())),
        new Bad("empty name", obj("", str("v"))),
        new Bad("control in name", obj("a\\u0001", str("v"))),
        new Bad("newline in value", obj("a", raw("\"b\\nc\""))),
        new Bad("DEL in value", obj("a", raw("\"\\u007f\""))),
        new Bad("C1 control in value", obj("a", raw("\"\\u0085\""))),
        new Bad("lone surrogate in name", obj("\\ud800", str("v"))),
        new Bad("lone surrogate in value", obj("a", raw("\"\\udfff\""))),
        new Bad("duplicate name", obj("a", str("1"), "a", str("2"))));
  }

  /** Metadata: any JSON object whose strings are text. */
  static List<Bad> metadata() {
    return List.of(
        new Bad("string", str("x")),
        new Bad("number", raw("1")),
        new Bad("array", arr()),
        new Bad("bool", raw("true")),
        new Bad("lone surrogate value", obj("a", raw("\"\\ud800\""))),
        new Bad("lone surrogate name", obj("\\udc00", raw("1"))),
        new Bad("lone surrogate deep", obj("a", arr(arr(raw("\"x\\ud800\""))))),
        new Bad("nested 1001 deep", obj("a", deep(1001))),
        new Bad("duplicate member", obj("a", raw("1"), "a", raw("2"))),
        new Bad("NaN", obj("a", raw("NaN"))),
        new Bad("not UTF-8", obj("a", NOT_UTF8.get(0).value())));
  }

  /** A JSON message body, where any value goes: only what is not JSON at all. */
  static List<Bad> jsonBody() {
    return List.of(
        new Bad("nested 1001 deep", deep(1001)),
        new Bad("NaN", raw("NaN")),
        new Bad("-Infinity", raw("-Infinity")),
        new Bad("leading zero", raw("007")),
        new Bad("single quotes", raw("'x'")),
        new Bad("1001 digits", raw("1".repeat(1001))),
        new Bad("bare word", raw("undefined")),
        new Bad("not UTF-8", NOT_UTF8.get(1).value()),
        new Bad("unclosed", raw("[1,")));
  }

  static List<Bad> textBody() {
    List<Bad> out = new ArrayList<>(NOT_TEXT);
    out.add(new Bad("null", raw("null")));
    out.addAll(LONE_SURROGATES);
    out.addAll(NOT_UTF8);
    return out;
  }

  static List<Bad> bytesBody() {
    List<Bad> out = new ArrayList<>(NOT_TEXT);
    out.add(new Bad("null", raw("null")));
    out.add(new Bad("not base64", str("***")));
    out.add(new Bad("one char", str("a")));
    out.add(new Bad("padding inside", str("ab=c")));
    out.add(new Bad("space inside", str("aGk =")));
    return out;
  }

  static List<Bad> contentType() {
    List<Bad> out = new ArrayList<>(NOT_TEXT);
    out.add(new Bad("unknown", str("xml")));
    out.add(new Bad("upper case", str("JSON")));
    out.add(new Bad("empty", str("")));
    out.addAll(LONE_SURROGATES);
    return out;
  }

  /** A queue name in a body (dead_letter_queue of queue {@code self}). */
  static List<Bad> queueName(String self) {
    List<Bad> out = new ArrayList<>(NOT_TEXT);
    out.add(new Bad("space", str("a b")));
    out.add(new Bad("dot", str(".")));
    out.add(new Bad("dot dot", str("..")));
    out.add(new Bad("slash", str("a/b")));
    out.add(new Bad("129 chars", str("d".repeat(129))));
    out.add(new Bad("itself", str(self)));
    out.add(new Bad("beyond ASCII", str("caf\u00e9")));
    out.addAll(LONE_SURROGATES);
    return out;
  }

  /** {@code depth} arrays, one inside the other. */
  static Raw deep(int depth) {
    return raw("[".repeat(depth) + "]".repeat(depth));
  }
}
