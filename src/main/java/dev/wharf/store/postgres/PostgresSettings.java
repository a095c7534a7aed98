package dev.wharf.store.postgres;

/**
 * Where the shared database is and how many connections one node may use.
 *
 * @param url a {@code jdbc:postgresql:} URL; {@code currentSchema} in it selects the schema
 * @param user null when the URL carries it (or trust authentication needs none)
 * @param password null when the URL carries it or none is needed
 * @param poolSize connections for writes and reads together (the listener and the reaper lock
 *     take one more each)
 */
public record PostgresSettings(String url, String user, String password, int poolSize) {

  public PostgresSettings {
    if (url == null || !url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("storage url must start with jdbc:postgresql:, got " + url);
    }
    if (poolSize < 2) {
      throw new IllegalArgumentException("storage pool must be at least 2, got " + poolSize);
    }
  }
}
