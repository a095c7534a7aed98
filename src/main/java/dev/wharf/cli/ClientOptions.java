package dev.wharf.cli;

import dev.wharf.app.WharfApp;
import dev.wharf.config.WharfConfig;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * Options every client command takes. The server's address and admin token come from the config
 * file unless {@code --url}/{@code --token} (or WHARF_URL/WHARF_TOKEN) say otherwise.
 */
final class ClientOptions {
  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description = "config file (default: ./wharf.yaml when present)")
  Path config;

  @Option(
      names = "--url",
      paramLabel = "URL",
      description = "server base URL (default: $WHARF_URL, else from the config)")
  String url;

  @Option(
      names = "--token",
      paramLabel = "TOKEN",
      description = "bearer token (default: $WHARF_TOKEN, else auth.admin_token of the config)")
  String token;

  @Option(names = "--json", description = "print the server's JSON instead of a table")
  boolean json;

  WharfClient client(Map<String, String> env) {
    // An empty variable is unset, as ${VAR:-default} in the config reads it.
    String u = url != null ? url : nonEmpty(env.get("WHARF_URL"));
    String t = token != null ? token : nonEmpty(env.get("WHARF_TOKEN"));
    if (u == null || t == null) {
      // Only read the file when it is needed: --url and --token together make it optional.
      WharfConfig cfg = CliConfig.loadForClient(config, env);
      if (u == null) {
        u = WharfApp.baseUrl(cfg.server().host(), cfg.server().port());
      }
      if (t == null) {
        t = cfg.auth().adminToken();
      }
    }
    return new WharfClient(u, t);
  }

  private static String nonEmpty(String v) {
    return v == null || v.isEmpty() ? null : v;
  }
}
