package dev.wharf.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.wharf.core.DeadLetterLoops;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code wharf.yaml} into a {@link WharfConfig}. Either the whole file is valid, or a {@link
 * ConfigException} lists every problem in it, each named by its path.
 */
public final class ConfigLoader {
  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
              // "billing:" with nothing after it is an entry with defaults, not the string ""
              .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
              .build());

  private final Map<String, String> env;

  public ConfigLoader(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  /** Loads the YAML parser's classes ahead of the first {@link #load}, on a start's spare core. */
  public static void preload() {
    try {
      YAML.readTree("warm: [up]");
    } catch (JacksonException e) {
      throw new IllegalStateException("the YAML parser rejects a constant document", e);
    }
  }

  /** A loader reading {@code ${VAR}} from this process's environment. */
  public static ConfigLoader fromSystemEnv() {
    return new ConfigLoader(System.getenv());
  }

  public WharfConfig load(Path file) {
    return parse(read(file), file.toString());
  }

  /**
   * What a client command needs of a file: where the server listens and its admin token. The
   * other sections are not read, so an error there (a storage password from a variable this
   * shell lacks, a misspelt queue key) does not stop an operator's {@code queues list}.
   */
  public WharfConfig loadForClient(Path file) {
    return parse(read(file), file.toString(), true);
  }

  private static String read(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(List.of(file + ": no such file"));
    } catch (java.nio.file.AccessDeniedException e) {
      throw new ConfigException(List.of(file + ": cannot read: permission denied"));
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new ConfigException(List.of(file + ": cannot read: not UTF-8 text"));
    } catch (IOException e) {
      throw new ConfigException(List.of(file + ": cannot read: " + e.getMessage()));
    }
    return text;
  }

  /** Parses YAML text; {@code origin} names the file in syntax errors. */
  public WharfConfig parse(String text, String origin) {
    return parse(text, origin, false);
  }

  private WharfConfig parse(String text, String origin, boolean clientView) {
    JsonNode root;
    Problems problems = new Problems();
    try {
      root = YamlTree.read((YAMLFactory) YAML.getFactory(), text, origin, problems);
    } catch (JacksonException e) {
      throw new ConfigException(List.of(origin + ": " + syntaxError(e)));
    } catch (IOException e) {
      throw new ConfigException(List.of(origin + ": " + e.getMessage()));
    }
    if (root != null && !root.isObject() && !root.isNull()) {
      // Not a path in the file: the file itself is the wrong shape, so it is named.
      problems.add(origin + ": expected a map of sections (server, storage, queues, ...), got "
          + ConfigNode.describe(root));
      root = null;
    }
    if (root != null && root.isObject()) {
      if (clientView) {
        ((ObjectNode) root).retain(List.of("server", "auth"));
      }
      new EnvInterpolation(env).applyTree(root, "", problems);
    }
    WharfConfig config = read(ConfigNode.of(root, "", problems));
    if (!problems.isEmpty()) {
      throw new ConfigException(problems.inFileOrder(root));
    }
    return config;
  }

  private static WharfConfig read(ConfigNode top) {
    ServerConfig server = ServerConfig.read(top.map("server"));
    StorageConfig storage = StorageConfig.read(top.map("storage"));
    AuthConfig auth = AuthConfig.read(top.map("auth"));
    Map<String, JsonNode> sources = mapOfMaps(top, "sources");
    Map<String, QueueConfig> queues = new LinkedHashMap<>();
    ConfigNode queuesNode = top.map("queues");
    queuesNode
        .entries()
        .forEach(
            (name, value) -> {
              ConfigNode q = ConfigNode.of(value, queuesNode.pathOf(name), top.problems());
              QueueConfig queue = QueueConfig.read(name, q);
              String source = queue.ingest().source();
              if (source != null && !sources.containsKey(source)) {
                top.problems()
                    .add(q.pathOf("source"), "no source named \"" + source + "\" in sources");
              }
              queues.put(name, queue);
            });
    queues.forEach(
        (name, queue) -> {
          String loop =
              DeadLetterLoops.problem(
                  name,
                  queue.settings(),
                  other -> queues.containsKey(other) ? queues.get(other).settings() : null);
          if (loop != null) {
            top.problems().addOfField(queuesNode.pathOf(name), loop);
          }
        });
    JsonNode pullApi = checkedMap(top, "pull_api");
    JsonNode push = checkedMap(top, "push");
    top.rejectUnknown();
    return new WharfConfig(server, storage, auth, queues, sources, pullApi, push);
  }

  /** A reserved section: must be a map when present; its contents are read by a later layer. */
  private static JsonNode checkedMap(ConfigNode top, String key) {
    JsonNode v = top.raw(key);
    if (v != null && !v.isObject()) {
      top.problems().add(top.pathOf(key), "expected a map, got " + ConfigNode.describe(v));
      return null;
    }
    return v;
  }

  private static Map<String, JsonNode> mapOfMaps(ConfigNode top, String key) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    ConfigNode section = top.map(key);
    section
        .entries()
        .forEach(
            (name, value) -> {
              if (value == null || value.isNull()) {
                out.put(name, YAML.createObjectNode());
              } else if (value.isObject()) {
                out.put(name, value);
              } else {
                top.problems()
                    .add(section.pathOf(name), "expected a map, got " + ConfigNode.describe(value));
              }
            });
    return out;
  }

  private static String syntaxError(JacksonException e) {
    JsonLocation at = e.getLocation();
    String what = e.getOriginalMessage();
    int line = at == null ? 0 : at.getLineNr();
    int column = at == null ? 0 : at.getColumnNr();
    // The YAML parser's own message quotes the source with markers over several lines; one line
    // of what went wrong, and where the construct it was reading began, reads better in a list.
    if (e.getCause() instanceof org.yaml.snakeyaml.error.MarkedYAMLException y
        && y.getProblem() != null) {
      what = y.getProblem();
      if (y.getProblemMark() != null) {
        // The parser's location is the last token it read, often lines before the problem.
        line = y.getProblemMark().getLine() + 1;
        column = y.getProblemMark().getColumn() + 1;
      }
      if (y.getContext() != null && y.getContextMark() != null) {
        what +=
            " ("
                + y.getContext()
                + " at line "
                + (y.getContextMark().getLine() + 1)
                + ", column "
                + (y.getContextMark().getColumn() + 1)
                + ")";
      }
    }
    if (line < 1) {
      return "not valid YAML: " + what;
    }
    return "line " + line + ", column " + column + ": not valid YAML: " + what;
  }
}
