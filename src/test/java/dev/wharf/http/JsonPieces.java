package dev.wharf.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON built from raw pieces, for requests a JSON library would refuse to write: duplicate
 * members, bytes that are not UTF-8, escapes of half a surrogate pair, numbers such as 1e400.
 */
final class JsonPieces {
  private JsonPieces() {}

  /** A JSON value, or what stands where one should. */
  sealed interface Value permits Raw, Obj, Arr {
    void write(ByteArrayOutputStream out);
  }

  /** Bytes written as they are. */
  record Raw(byte[] bytes) implements Value {
    @Override
    public void write(ByteArrayOutputStream out) {
      out.writeBytes(bytes);
    }

    @Override
    public String toString() {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  record Member(String name, Value value) {}

  /** An object whose members keep their order, and may repeat a name. */
  record Obj(List<Member> members) implements Value {
    Obj {
      members = List.copyOf(members);
    }

    Value get(String name) {
      for (Member m : members) {
        if (m.name.equals(name)) {
          return m.value;
        }
      }
      return null;
    }

    Obj with(String name, Value v) {
      List<Member> out = new ArrayList<>();
      boolean found = false;
      for (Member m : members) {
        if (m.name.equals(name)) {
          out.add(new Member(name, v));
          found = true;
        } else {
          out.add(m);
        }
      }
      if (!found) {
        out.add(new Member(name, v));
      }
      return new Obj(out);
    }

    Obj without(String name) {
      return new Obj(members.stream().filter(m -> !m.name.equals(name)).toList());
    }

    /** Appends a member even when one of that name is there already. */
    Obj plus(String name, Value v) {
      List<Member> out = new ArrayList<>(members);
      out.add(new Member(name, v));
      return new Obj(out);
    }

    @Override
    public void write(ByteArrayOutputStream out) {
      out.write('{');
      for (int i = 0; i < members.size(); i++) {
        if (i > 0) {
          out.write(',');
        }
        // Names are written raw too: a test may want an escape or a bad byte in one.
        out.write('"');
        out.writeBytes(members.get(i).name.getBytes(StandardCharsets.UTF_8));
        out.write('"');
        out.write(':');
        members.get(i).value.write(out);
      }
      out.write('}');
    }
  }

  record Arr(List<Value> items) implements Value {
    Arr {
      items = List.copyOf(items);
    }

    @Override
    public void write(ByteArrayOutputStream out) {
      out.write('[');
      for (int i = 0; i < items.size(); i++) {
        if (i > 0) {
          out.write(',');
        }
        items.get(i).write(out);
      }
      out.write(']');
    }
  }

  /** JSON text as written, escapes and all: a lone surrogate's escape stays six characters. */
  static Raw raw(String json) {
    return new Raw(json.getBytes(StandardCharsets.UTF_8));
  }

  /** A JSON string of plain text that needs no escape. */
  static Raw str(String plain) {
    return raw('"' + plain + '"');
  }

  static Obj obj(Object... nameValuePairs) {
    List<Member> out = new ArrayList<>();
    for (int i = 0; i < nameValuePairs.length; i += 2) {
      out.add(new Member((String) nameValuePairs[i], (Value) nameValuePairs[i + 1]));
    }
    return new Obj(out);
  }

  static Arr arr(Value... items) {
    return new Arr(List.of(items));
  }

  static byte[] bytes(Value v) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    v.write(out);
    return out.toByteArray();
  }
}
