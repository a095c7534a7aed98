package dev.wharf.http;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A JSON value already encoded as UTF-8, for {@code JsonGenerator.writeRawValue}: a byte-writing
 * generator copies the bytes into its buffer as they are. The {@code String} route would decode
 * every stored payload to chars and encode it back, per delivery, on the event loop.
 *
 * <p>Only the unquoted UTF-8 forms are the bytes themselves; the char and quoted forms, which a
 * generator asks for when it writes chars or the value is used as a string, come from the
 * decoded text.
 */
public final class RawJson implements SerializableString {
  private final byte[] utf8;
  /** The decoded text, made only when a generator asks for chars or the quoted form. */
  private SerializedString text;

  /** @param utf8 a complete JSON value; not copied, so not to be changed afterwards */
  public RawJson(byte[] utf8) {
    this.utf8 = utf8;
  }

  @Override
  public String getValue() {
    return text().getValue();
  }

  @Override
  public int charLength() {
    return text().charLength();
  }

  @Override
  public int appendUnquotedUTF8(byte[] buffer, int offset) {
    if (offset + utf8.length > buffer.length) {
      return -1;
    }
    System.arraycopy(utf8, 0, buffer, offset, utf8.length);
    return utf8.length;
  }

  @Override
  public byte[] asUnquotedUTF8() {
    return utf8;
  }

  @Override
  public int writeUnquotedUTF8(OutputStream out) throws IOException {
    out.write(utf8);
    return utf8.length;
  }

  @Override
  public int putUnquotedUTF8(ByteBuffer buffer) {
    if (buffer.remaining() < utf8.length) {
      return -1;
    }
    buffer.put(utf8);
    return utf8.length;
  }

  @Override
  public int appendUnquoted(char[] buffer, int offset) {
    return text().appendUnquoted(buffer, offset);
  }

  @Override
  public char[] asQuotedChars() {
    return text().asQuotedChars();
  }

  @Override
  public byte[] asQuotedUTF8() {
    return text().asQuotedUTF8();
  }

  @Override
  public int appendQuotedUTF8(byte[] buffer, int offset) {
    return text().appendQuotedUTF8(buffer, offset);
  }

  @Override
  public int appendQuoted(char[] buffer, int offset) {
    return text().appendQuoted(buffer, offset);
  }

  @Override
  public int writeQuotedUTF8(OutputStream out) throws IOException {
    return text().writeQuotedUTF8(out);
  }

  @Override
  public int putQuotedUTF8(ByteBuffer buffer) {
    return text().putQuotedUTF8(buffer);
  }

  private SerializedString text() {
    if (text == null) {
      text = new SerializedString(new String(utf8, StandardCharsets.UTF_8));
    }
    return text;
  }

  @Override
  public String toString() {
    return getValue();
  }
}
