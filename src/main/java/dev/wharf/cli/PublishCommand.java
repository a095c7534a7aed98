package dev.wharf.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.wharf.core.Durations;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code wharf publish Q}: put one message on a queue of a running server. */
@Command(
    name = "publish",
    mixinStandardHelpOptions = true,
    description = {
      // One string per paragraph: picocli wraps each to the terminal width on its own, so a
      // paragraph split over strings would come out with broken lines.
      "Publish one message. Without --data, --text or --file the body is read from stdin.",
      "A file or stdin is sent as JSON when it parses as JSON, as text when it is UTF-8, and as"
          + " bytes otherwise."
    })
final class PublishCommand implements Runnable {
  @ParentCommand Main main;
  @Spec CommandSpec spec;
  @Mixin ClientOptions client;

  @Parameters(paramLabel = "QUEUE")
  String queue;

  static final class Body {
    @Option(names = "--data", paramLabel = "JSON", description = "a JSON body")
    String data;

    @Option(names = "--text", paramLabel = "STR", description = "a text body")
    String text;

    @Option(names = "--file", paramLabel = "FILE", description = "the body from a file")
    Path file;
  }

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Body body;

  @Option(names = "--header", paramLabel = "NAME=VALUE", description = "a header (repeatable)")
  List<String> headers = new ArrayList<>();

  @Option(names = "--delay", paramLabel = "DURATION", description = "visible after, e.g. 5s")
  String delay;

  @Option(names = "--ttl", paramLabel = "DURATION", description = "time to live, e.g. 1h")
  String ttl;

  @Option(names = "--key", paramLabel = "K", description = "replace a ready message with this key")
  String key;

  @Option(names = "--idempotency-key", paramLabel = "K", description = "publish once per key")
  String idempotencyKey;

  @Option(names = "--metadata", paramLabel = "JSON", description = "a JSON object kept with it")
  String metadata;

  @Override
  public void run() {
    // Before the body: a wrong command line must not wait for stdin first.
    Map<String, String> named = headers();
    RawValue meta = metadata == null ? null : json(metadata, "--metadata");
    ObjectNode request = WharfClient.JSON.createObjectNode();
    setBody(request);
    if (meta != null) {
      request.putRawValue("metadata", meta);
    }
    if (!named.isEmpty()) {
      named.forEach(request.putObject("headers")::put);
    }
    putDuration(request, "delay", "--delay", delay);
    putDuration(request, "ttl", "--ttl", ttl);
    if (key != null) {
      request.put("key", key);
    }
    if (idempotencyKey != null) {
      request.put("idempotency_key", idempotencyKey);
    }
    WharfClient.Answer sent =
        client
            .client(main.env)
            .post(
                "/v1/queues/" + WharfClient.segment(queue) + "/messages", request, Shape.PUBLISHED);
    JsonNode answer = sent.json();
    var out = spec.commandLine().getOut();
    if (client.json) {
      out.println(sent.text());
    } else {
      String note =
          answer.path("duplicate").asBoolean()
              ? " (duplicate of an earlier publish)"
              : answer.path("replaced").asBoolean()
                  ? " (replaced the ready message with that key)"
                  : "";
      out.println("published " + answer.path("id").asText() + " to " + queue + note);
    }
    out.flush();
  }

  /**
   * The headers by name. A name given twice is refused, as the API refuses it, rather than one
   * value silently dropped. Names compare as the API compares them: exactly, since they are the
   * keys of a JSON object, so {@code X-Id} and {@code x-id} are two headers.
   */
  private Map<String, String> headers() {
    Map<String, String> named = new LinkedHashMap<>();
    for (String header : headers) {
      // The value may hold '=' too: only the first one ends the name.
      int eq = header.indexOf('=');
      if (eq < 1) {
        throw new CliException(
            CliException.FAILED, "--header takes NAME=VALUE, got \"" + header + "\"");
      }
      String name = header.substring(0, eq);
      String earlier = named.putIfAbsent(name, header.substring(eq + 1));
      if (earlier != null) {
        throw new ParameterException(
            spec.commandLine(),
            "header "
                + name
                + " given twice (--header "
                + name
                + "="
                + earlier
                + " and --header "
                + header
                + "): a message has one value per header name");
      }
    }
    return named;
  }

  private void setBody(ObjectNode request) {
    if (body != null && body.data != null) {
      request.put("content_type", "json");
      request.putRawValue("body", json(body.data, "--data"));
    } else if (body != null && body.text != null) {
      request.put("content_type", "text");
      request.put("body", body.text);
    } else if (body != null && body.file != null) {
      guess(request, nonEmpty(withoutByteOrderMark(read(body.file)), body.file.toString()));
    } else {
      guess(request, nonEmpty(withoutByteOrderMark(readStdin()), "stdin"));
    }
  }

  /**
   * An empty file or stdin is nearly always a mistake (an empty pipe, a file not yet written):
   * an empty message must be asked for.
   */
  private static byte[] nonEmpty(byte[] bytes, String what) {
    if (bytes.length == 0) {
      throw new CliException(CliException.FAILED,
          what + " is empty: nothing to publish (an empty text message is --text '')");
    }
    return bytes;
  }

  /** A byte-order mark some editors write ahead of UTF-8 marks the encoding, not the content. */
  private static byte[] withoutByteOrderMark(byte[] bytes) {
    if (bytes.length >= 3 && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb
        && (bytes[2] & 0xff) == 0xbf) {
      return java.util.Arrays.copyOfRange(bytes, 3, bytes.length);
    }
    return bytes;
  }

  /** JSON when it parses, text when it is UTF-8, bytes otherwise. */
  private static void guess(ObjectNode request, byte[] bytes) {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      request.put("content_type", "bytes");
      request.put("body", Base64.getEncoder().encodeToString(bytes));
      return;
    }
    if (JsonText.isOneValue(text)) {
      request.putRawValue("body", new RawValue(text.strip()));
      request.put("content_type", "json");
      return;
    }
    request.put("content_type", "text");
    request.put("body", text);
  }

  /**
   * The user's JSON, checked but kept as text: the request embeds it as written, because parsing
   * and re-serialising would change numbers (7.50 to 7.5, 1e999999 to "Infinity").
   */
  private static RawValue json(String text, String option) {
    if (!JsonText.isOneValue(text)) {
      throw new CliException(CliException.FAILED, option + " is not valid JSON: " + text);
    }
    return new RawValue(text.strip());
  }

  /** Whether stdin is a terminal: JDK 22+ asks the console; before, a console means one. */
  private static boolean onTerminal() {
    java.io.Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  /**
   * The most a body may be here: the message goes out as one JSON document, its bytes base64'd,
   * built in memory, so an unbounded input would end in an OutOfMemoryError (300 MB of stdin took
   * 6 GB). Servers accept 1 MB by default.
   */
  static final int MAX_INPUT = 64 << 20;

  private static byte[] read(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return bounded(in, file.toString());
    } catch (NoSuchFileException e) {
      throw new CliException(CliException.FAILED, "cannot read " + file + ": no such file");
    } catch (AccessDeniedException e) {
      throw new CliException(CliException.FAILED, "cannot read " + file + ": permission denied");
    } catch (IOException e) {
      // The JDK's message says what went wrong ("Is a directory"); its class name is noise.
      throw new CliException(CliException.FAILED, "cannot read " + file + ": " + e.getMessage());
    }
  }

  private byte[] readStdin() {
    if (main.stdin == System.in && onTerminal()) {
      // Without a pipe the command would wait without a word.
      var err = spec.commandLine().getErr();
      err.println("wharf: reading the message from the terminal; end it with Ctrl-D"
          + " (or give --data, --text or --file)");
      err.flush();
    }
    try {
      // stdin is not closed: it belongs to the process (or the test that passed it in).
      return bounded(main.stdin, "stdin");
    } catch (IOException e) {
      throw new CliException(CliException.FAILED, "cannot read stdin: " + e.getMessage());
    }
  }

  private static byte[] bounded(InputStream in, String what) throws IOException {
    byte[] got = in.readNBytes(MAX_INPUT + 1);
    if (got.length > MAX_INPUT) {
      throw new CliException(
          CliException.FAILED,
          what + " holds more than " + (MAX_INPUT >> 20) + " MB: too large a message to publish");
    }
    return got;
  }

  private static void putDuration(ObjectNode request, String field, String option, String value) {
    if (value == null) {
      return;
    }
    try {
      Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CliException(CliException.FAILED, option + ": " + e.getMessage());
    }
    // As written: one too long to count would be sent as "more than ...", which is no duration.
    request.put(field, value.trim());
  }
}
