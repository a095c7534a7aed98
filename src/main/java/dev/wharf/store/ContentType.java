package dev.wharf.store;

/** How a payload's bytes are to be read. The wire names are those publishers send. */
public enum ContentType {
  JSON("json"),
  TEXT("text"),
  BYTES("bytes");

  private final String wire;

  ContentType(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static ContentType ofWire(String name) {
    for (ContentType t : values()) {
      if (t.wire.equals(name)) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown content type " + name);
  }
}
