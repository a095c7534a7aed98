package dev.wharf.store.postgres;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Where the shared database is and how many connections one node may use.
 *
 * @param url a {@code jdbc:postgresql:} URL; {@code currentSchema} in it selects the schema
 * @param user null when the URL carries it (or trust authentication needs none)
 * @param password null when the URL carries it or none is needed
 * @param poolSize connections for writes and reads together (the listener, the reaper lock and
 *     purges with queue deletions take one more each)
 * @param stallTimeout how long a node waits for the database to answer (a new connection's
 *     login, a statement, a commit) before it takes that connection for dead; a purge, a queue's
 *     deletion and the start's migrations wait as long as they take
 */
public record PostgresSettings(
    String url, String user, String password, int poolSize, Duration stallTimeout) {
  /** A commit or a page of a read takes milliseconds; ten seconds of silence is a stall. */
  public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(10);

  public PostgresSettings {
    if (url == null || !url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("storage url must start with jdbc:postgresql:, got " + url);
    }
    if (poolSize < 1) {
      throw new IllegalArgumentException("storage pool must be at least 1, got " + poolSize);
    }
    if (stallTimeout == null || stallTimeout.toMillis() < 1
        || stallTimeout.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "storage stall_timeout must be between 1ms and 24d, got " + stallTimeout);
    }
  }

  public PostgresSettings(String url, String user, String password, int poolSize) {
    this(url, user, password, poolSize, DEFAULT_STALL_TIMEOUT);
  }

  /** {@link #stallTimeout} for the driver's settings that take whole seconds, rounded up. */
  int stallTimeoutSeconds() {
    return (int) Math.max(1, (stallTimeout.toMillis() + 999) / 1000);
  }

  /**
   * Settings from a config file, which may also give a libpq-style URL ({@code
   * postgres://user:password@host:port/db?options}); its user and password count only when the
   * config gives none.
   */
  public static PostgresSettings of(String url, String user, String password, int poolSize) {
    return of(url, user, password, poolSize, DEFAULT_STALL_TIMEOUT);
  }

  /** As {@link #of(String, String, String, int)}, with a stall timeout. */
  public static PostgresSettings of(
      String url, String user, String password, int poolSize, Duration stallTimeout) {
    if (url != null && (url.startsWith("postgres://") || url.startsWith("postgresql://"))) {
      URI u;
      try {
        u = new URI(url);
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("storage url is not a URL: " + e.getMessage(), e);
      }
      String info = u.getRawUserInfo();
      if (info != null) {
        int colon = info.indexOf(':');
        String urlUser = decode(colon < 0 ? info : info.substring(0, colon));
        String urlPassword = colon < 0 ? null : decode(info.substring(colon + 1));
        user = user != null ? user : urlUser;
        password = password != null ? password : urlPassword;
      }
      String host = u.getHost() == null ? "localhost" : u.getHost();
      String port = u.getPort() < 0 ? "" : ":" + u.getPort();
      String path = u.getRawPath() == null ? "/" : u.getRawPath();
      String query = u.getRawQuery() == null ? "" : "?" + u.getRawQuery();
      url = "jdbc:postgresql://" + host + port + path + query;
    }
    return new PostgresSettings(url, user, password, poolSize, stallTimeout);
  }

  /**
   * The URL with every password in it masked, for logs, start lines and error messages: the one
   * in a libpq-style user part and any query parameter whose name holds "password".
   */
  public static String redact(String url) {
    if (url == null) {
      return null;
    }
    String out = USER_PASSWORD.matcher(url).replaceFirst("$1$2:***@");
    return PASSWORD_PARAM.matcher(out).replaceAll("$1$2=***");
  }

  private static final Pattern USER_PASSWORD =
      Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://)([^/@?#:]*):[^/?#]*@");
  private static final Pattern PASSWORD_PARAM =
      Pattern.compile("([?&;])([^=&;#]*password[^=&;#]*)=([^&;#]*)", Pattern.CASE_INSENSITIVE);

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "PostgresSettings[url=" + redact(url) + ", user=" + user + ", password=***, poolSize="
        + poolSize + ", stallTimeout=" + stallTimeout + "]";
  }
}
