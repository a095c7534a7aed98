package dev.wharf.cli;

import dev.wharf.config.ConfigException;
import dev.wharf.config.ConfigLoader;
import dev.wharf.config.WharfConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Finds the config a command runs with. An explicit {@code -c} file must exist; without one, {@code
 * ./wharf.yaml} is used when present and the defaults otherwise, so a bare {@code wharf serve}
 * works out of the box.
 */
final class CliConfig {
  static final Path DEFAULT_FILE = Path.of("wharf.yaml");

  private CliConfig() {}

  /** The file that would be read, or null when none is named and wharf.yaml is absent. */
  static Path fileFor(Path explicit) {
    if (explicit != null) {
      return explicit;
    }
    return Files.exists(DEFAULT_FILE) ? DEFAULT_FILE : null;
  }

  static WharfConfig load(Path explicit, Map<String, String> env) {
    return load(explicit, env, false);
  }

  /** Only the server and auth sections, for a command that talks to a running server. */
  static WharfConfig loadForClient(Path explicit, Map<String, String> env) {
    return load(explicit, env, true);
  }

  private static WharfConfig load(Path explicit, Map<String, String> env, boolean client) {
    Path file = fileFor(explicit);
    if (file == null) {
      return WharfConfig.defaults();
    }
    if (!Files.exists(file)) {
      throw new CliException(CliException.FAILED, "no config file at " + file);
    }
    try {
      ConfigLoader loader = new ConfigLoader(env);
      return client ? loader.loadForClient(file) : loader.load(file);
    } catch (ConfigException e) {
      StringBuilder msg = new StringBuilder("the config ").append(file).append(" has errors:");
      e.errors().forEach(line -> msg.append("\n  ").append(line));
      throw new CliException(CliException.FAILED, msg.toString());
    }
  }
}
