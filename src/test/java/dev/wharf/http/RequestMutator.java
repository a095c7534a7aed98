package dev.wharf.http;

import static dev.wharf.http.JsonPieces.arr;
import static dev.wharf.http.JsonPieces.obj;
import static dev.wharf.http.JsonPieces.raw;
import static dev.wharf.http.JsonPieces.str;

import dev.wharf.http.BadValues.Bad;
import dev.wharf.http.BadValues.Field;
import dev.wharf.http.JsonPieces.Arr;
import dev.wharf.http.JsonPieces.Obj;
import dev.wharf.http.JsonPieces.Value;
import dev.wharf.http.NativeRoutes.Route;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Turns a route's valid request into one that api.md says is refused, one mistake at a time, and
 * says how: the status and code the answer must carry. Every choice comes from the given random,
 * so a seed replays a run.
 */
final class RequestMutator {
  /** A refused request and the answer api.md gives it. */
  record Case(String what, WireRequest request, Set<Integer> statuses, String code) {}

  enum Kind {
    DROP_REQUIRED, NULL_REQUIRED, BAD_VALUE, UNKNOWN_FIELD, DUPLICATE_FIELD, BAD_ENTRIES,
    TRUNCATED, TRAILING, NOT_AN_OBJECT, MALFORMED, DEEP, NOT_UTF8, OVERSIZE,
    CONTENT_TYPE, CONTENT_ENCODING,
    QUERY_UNKNOWN, QUERY_REPEATED, QUERY_BAD_VALUE, QUERY_MALFORMED,
    BAD_QUEUE_NAME, BAD_MESSAGE_ID
  }

  private static final Set<Integer> B400 = Set.of(400);

  private static final List<String> UNKNOWN_NAMES =
      List.of("colour", "Body", "maxx", "lease", "extra", "__proto__", "caf\u00e9", "a\\u0000b",
          "\\ud800", "", "n".repeat(300), "content-type", "Lease_Id");

  /** Path segments that name no queue, as sent; "" leaves the segment empty. */
  private static final List<String> BAD_NAMES =
      List.of(".", "..", "%2E", "%2E%2E", "%2e.", "a%2Fb", "%2F", "q%2F..%2Fq", "n".repeat(129),
          "a%20b", "a+b", "q%00", "%C3%A9", "%FF", "q%3Fx", "q;x", "%5C", "", "%EF%BF%BD");

  /** Valid names of no queue: a 404 wherever a PUT would not create them. */
  private static final List<String> UNKNOWN_QUEUES = List.of("nope", "Q", "q.dlq.dlq");

  private static final List<String> BAD_IDS =
      List.of("", "%2F", "..", ".", "i".repeat(300), "01JNOPE", "%00", "%FF", "x%2Fy",
          "%2E%2E%2Fq");

  private static final List<String> BAD_TYPES =
      List.of("text/plain", "application/xml", "garbage", "application/json; charset=utf-16",
          "application/json; charset=latin1", "text/json", "multipart/form-data; boundary=x",
          "application/", "/json", "application/json/x", "image/png");

  private final Random random;
  private final String queue;
  private final long maxBody;

  RequestMutator(Random random, String queue, long maxBody) {
    this.random = random;
    this.queue = queue;
    this.maxBody = maxBody;
  }

  /** The kinds of mistake a request of this route can be made with. */
  List<Kind> kinds(Route r) {
    List<Kind> out = new ArrayList<>();
    for (Kind k : Kind.values()) {
      boolean fits =
          switch (k) {
            case DROP_REQUIRED -> r.fields().stream().anyMatch(Field::required);
            case NULL_REQUIRED -> r.fields().stream().anyMatch(Field::nullRefused);
            case BAD_VALUE -> !r.fields().isEmpty();
            case DUPLICATE_FIELD -> r.hasBody() && !r.body().members().isEmpty();
            case BAD_ENTRIES -> r.entries() != null;
            case UNKNOWN_FIELD, TRUNCATED, TRAILING, NOT_AN_OBJECT, MALFORMED, DEEP, NOT_UTF8,
                OVERSIZE, CONTENT_TYPE, CONTENT_ENCODING -> r.hasBody();
            case QUERY_REPEATED, QUERY_BAD_VALUE -> !r.badQuery().isEmpty();
            case QUERY_UNKNOWN, QUERY_MALFORMED -> true;
            case BAD_QUEUE_NAME -> r.path().contains("{name}");
            case BAD_MESSAGE_ID -> r.path().startsWith("/v1/queues/{name}/messages/");
          };
      if (fits) {
        out.add(k);
      }
    }
    return out;
  }

  Case mutate(Route r, Kind k) {
    WireRequest valid = valid(r);
    return switch (k) {
      case DROP_REQUIRED -> {
        Field f = pick(r.fields().stream().filter(Field::required).toList());
        yield field(r, "drop " + f.name(), f.name(), null);
      }
      case NULL_REQUIRED -> {
        Field f = pick(r.fields().stream().filter(Field::nullRefused).toList());
        yield field(r, f.name() + ": null", f.name(), raw("null"));
      }
      case BAD_VALUE -> {
        Field f = pick(r.fields());
        Bad b = pick(f.bad());
        yield field(r, f.name() + ": " + b.what(), f.name(), b.value());
      }
      case UNKNOWN_FIELD -> {
        String name = pick(UNKNOWN_NAMES);
        yield body(valid, "unknown field \"" + name + "\"", r.body().plus(name, raw("1")));
      }
      case DUPLICATE_FIELD -> {
        var m = pick(r.body().members());
        yield body(valid, "duplicate " + m.name(), r.body().plus(m.name(), m.value()));
      }
      case BAD_ENTRIES -> {
        Bad b = pick(badEntries());
        yield body(valid, r.entries() + ": " + b.what(), r.body().with(r.entries(), b.value()));
      }
      case TRUNCATED -> {
        byte[] whole = valid.body();
        int at = 1 + random.nextInt(whole.length - 1);
        yield bytes(valid, "cut at " + at, Arrays.copyOf(whole, at));
      }
      case TRAILING -> {
        String tail = pick(List.of(" {}", "{}", " 1", " x", ",", "]", " \"s\"", "\n{}"));
        yield bytes(valid, "trailing " + tail.strip(), concat(valid.body(), tail));
      }
      case NOT_AN_OBJECT -> {
        String text = pick(List.of("[]", "[{}]", "1", "\"s\"", "null", "true", "-0", "1e400"));
        yield bytes(valid, "body " + text, text.getBytes(StandardCharsets.UTF_8));
      }
      case MALFORMED -> malformed(valid);
      case DEEP -> {
        int depth = pick(List.of(1001, 1200, 2000));
        Value deep = BadValues.deep(depth);
        yield random.nextBoolean()
            ? body(valid, "body nested " + depth, deep)
            : body(valid, "member nested " + depth, r.body().plus("deep", deep));
      }
      case NOT_UTF8 -> notUtf8(valid);
      case OVERSIZE -> {
        int pad = (int) maxBody + 1 - valid.body().length + random.nextInt(3000);
        yield new Case("padded past max_body", valid.withBody(concat(valid.body(),
            " ".repeat(Math.max(pad, 1)))), Set.of(413), "body_too_large");
      }
      case CONTENT_TYPE -> {
        String type = pick(BAD_TYPES);
        yield new Case("Content-Type " + type, valid.withContentType(type), Set.of(415),
            "unsupported_media_type");
      }
      case CONTENT_ENCODING -> {
        String coding = pick(List.of("gzip", "br", "deflate, gzip", "compress"));
        yield new Case("Content-Encoding " + coding,
            valid.withHeader("Content-Encoding: " + coding), Set.of(415),
            "unsupported_media_type");
      }
      case QUERY_UNKNOWN -> {
        Map<String, String> q = new LinkedHashMap<>(r.query());
        String name = pick(List.of("x", "verbose", "wait", "max", "force", "limit", "state",
            "Limit", "lease_id"));
        if (r.query().containsKey(name)) {
          name = name + "_";
        }
        q.put(name, pick(List.of("1", "", "true", "%20")));
        yield query(valid, r, "query " + name, q, "");
      }
      case QUERY_REPEATED -> {
        String name = pick(new ArrayList<>(r.badQuery().keySet()));
        String again = name + "=" + r.query().getOrDefault(name, "1");
        yield query(valid, r, "repeated " + name, r.query(), "&" + again);
      }
      case QUERY_BAD_VALUE -> {
        String name = pick(new ArrayList<>(r.badQuery().keySet()));
        String v = pick(r.badQuery().get(name));
        Map<String, String> q = new LinkedHashMap<>(r.query());
        q.put(name, v);
        yield query(valid, r, name + "=" + v, q, "");
      }
      case QUERY_MALFORMED -> {
        String tail = pick(List.of("%ZZ=1", "a=%", "a=%G1", "%=1", "a=%E"));
        String sep = r.query().isEmpty() ? "" : "&";
        yield query(valid, r, "query " + tail, r.query(), sep + tail);
      }
      case BAD_QUEUE_NAME -> badName(r, valid);
      case BAD_MESSAGE_ID -> {
        String id = pick(BAD_IDS);
        String target = valid.target().replaceFirst("/messages/[^/?]*", "/messages/" + id);
        yield new Case("message id \"" + id + "\"", valid.withTarget(target), Set.of(404),
            "message_not_found");
      }
    };
  }

  /** The route's valid request, for the test's queue. */
  WireRequest valid(Route r) {
    String target = r.path().replace("{name}", queue);
    if (!r.query().isEmpty()) {
      target += "?" + joined(r.query());
    }
    return WireRequest.of(r.method(), target, r.hasBody() ? JsonPieces.bytes(r.body()) : null);
  }

  private Case field(Route r, String what, String name, Value v) {
    Obj body = r.body();
    if (r.entries() == null) {
      body = v == null ? body.without(name) : body.with(name, v);
    } else {
      List<Value> entries = new ArrayList<>(((Arr) body.get(r.entries())).items());
      int i = random.nextInt(entries.size());
      Obj entry = (Obj) entries.get(i);
      entries.set(i, v == null ? entry.without(name) : entry.with(name, v));
      body = body.with(r.entries(), new Arr(entries));
      what = r.entries() + "[" + i + "]." + what;
    }
    return body(valid(r), what, body);
  }

  private Case body(WireRequest valid, String what, Value body) {
    return bytes(valid, what, JsonPieces.bytes(body));
  }

  /** A body that is refused for what it holds: a 400, or a 413 when it is also too long. */
  private Case bytes(WireRequest valid, String what, byte[] body) {
    if (body.length > maxBody) {
      return new Case(what, valid.withBody(body), Set.of(413), "body_too_large");
    }
    return new Case(what, valid.withBody(body), B400, "invalid_body");
  }

  private List<Bad> badEntries() {
    return List.of(
        new Bad("object", obj("body", raw("1"))),
        new Bad("string", str("x")),
        new Bad("null", raw("null")),
        new Bad("empty", arr()),
        new Bad("number entry", arr(raw("1"))),
        new Bad("array entry", arr(arr())),
        new Bad("1001 entries", raw("[" + "{\"body\":1},".repeat(1000) + "{\"body\":1}]")),
        new Bad("nested batch", arr(obj("messages", arr(obj("body", raw("1")))))));
  }

  private Case malformed(WireRequest valid) {
    String text = new String(valid.body(), StandardCharsets.UTF_8);
    int last = text.lastIndexOf('}');
    List<String[]> options = new ArrayList<>();
    options.add(new String[] {"comment", "/*c*/" + text});
    options.add(new String[] {"trailing comma", text.substring(0, last) + ",}"});
    options.add(new String[] {"closed as array", text.substring(0, last) + "]"});
    options.add(new String[] {"no closing brace", text.substring(0, last)});
    options.add(new String[] {"two opening braces", "{" + text});
    if (text.indexOf(':') > 0) {
      options.add(new String[] {"no colon", text.replaceFirst(":", " ")});
      options.add(new String[] {"single quotes", text.replaceFirst("\"([^\"]*)\"", "'$1'")});
      options.add(new String[] {"bare name", text.replaceFirst("\"([^\"]*)\"", "$1")});
      options.add(new String[] {"equals", text.replaceFirst(":", "=")});
    }
    String[] o = pick(options);
    return bytes(valid, "malformed: " + o[0], o[1].getBytes(StandardCharsets.UTF_8));
  }

  /** A byte that is not UTF-8, in a member's name or between the braces of {@code {}}. */
  private Case notUtf8(WireRequest valid) {
    byte[] b = valid.body();
    int quote = new String(b, StandardCharsets.ISO_8859_1).indexOf('"');
    int at = quote < 0 ? 1 : quote + 1;
    int bad = pick(List.of(0xff, 0xc0, 0x80, 0xed, 0xf5, 0xfe));
    byte[] out = new byte[b.length + 1];
    System.arraycopy(b, 0, out, 0, at);
    out[at] = (byte) bad;
    System.arraycopy(b, at, out, at + 1, b.length - at);
    return bytes(valid, String.format("byte %02x at %d", bad, at), out);
  }

  private Case query(WireRequest valid, Route r, String what, Map<String, String> q, String more) {
    String path = r.path().replace("{name}", queue);
    String joined = joined(q) + more;
    return new Case(what, valid.withTarget(path + "?" + joined), B400, "invalid_param");
  }

  private Case badName(Route r, WireRequest valid) {
    boolean put = r.method().equals("PUT");
    List<String> names = new ArrayList<>(BAD_NAMES);
    if (!put) {
      names.addAll(UNKNOWN_QUEUES);
    }
    names.add("%ZZ");
    String name = pick(names);
    String target = valid.target().replaceFirst("^/v1/queues/" + queue, "/v1/queues/" + name);
    String what = "queue name \"" + name + "\"";
    if (name.equals("%ZZ")) {
      return new Case(what, valid.withTarget(target), B400, "invalid_request");
    }
    if (put) {
      return new Case(what, valid.withTarget(target), B400, "invalid_queue_name");
    }
    return new Case(what, valid.withTarget(target), Set.of(404), "queue_not_found");
  }

  private static String joined(Map<String, String> q) {
    return q.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining("&"));
  }

  private static byte[] concat(byte[] a, String tail) {
    byte[] t = tail.getBytes(StandardCharsets.UTF_8);
    byte[] out = Arrays.copyOf(a, a.length + t.length);
    System.arraycopy(t, 0, out, a.length, t.length);
    return out;
  }

  private <T> T pick(List<T> from) {
    return from.get(random.nextInt(from.size()));
  }
}
