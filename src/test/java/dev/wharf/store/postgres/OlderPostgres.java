package dev.wharf.store.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Embedded servers of PostgreSQL releases older than the one the other tests use, one per major
 * version, started on first use and kept for the JVM. Their binaries come from the jars the build
 * copies aside (pom.xml, {@code wharf.pg.binaries}): the test classpath holds only one version
 * of that artifact.
 */
final class OlderPostgres {
  private static final String DIRECTORY = "wharf.pg.binaries";
  private static final Map<Integer, PgTestServer> STARTED = new HashMap<>();

  private OlderPostgres() {}

  /** A server of the major version given, started on first use. */
  static synchronized PgTestServer major(int version) {
    PgTestServer server = STARTED.get(version);
    if (server == null) {
      byte[] archive = archiveOf(jarOf(version));
      EmbeddedPostgres pg;
      try {
        pg = EmbeddedPostgres.builder()
            .setPgBinaryResolver((system, machine) -> new ByteArrayInputStream(archive))
            .start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start PostgreSQL " + version, e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(() -> close(pg)));
      server = new PgTestServer(pg.getJdbcUrl("postgres", "postgres"));
      STARTED.put(version, server);
    }
    return server;
  }

  /** The copied jar of the version's binaries, e.g. {@code …-linux-amd64-13.18.0.jar}. */
  private static Path jarOf(int version) {
    Path dir = Path.of(System.getProperty(DIRECTORY, "target/pg-binaries"));
    try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "*-" + version + ".*.jar")) {
      for (Path jar : jars) {
        return jar;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("no PostgreSQL binaries in " + dir
          + ": the build copies them there (mvn test-compile)", e);
    }
    throw new IllegalStateException("no PostgreSQL " + version + " binaries in " + dir
        + ": the build copies them there (pom.xml, older-postgres-binaries)");
  }

  /** The server's archive inside the jar, for the machine the tests run on. */
  private static byte[] archiveOf(Path jar) {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      ZipEntry entry = zip.getEntry("postgres-linux-x86_64.txz");
      if (entry == null) {
        throw new IllegalStateException("no linux x86-64 server in " + jar);
      }
      try (InputStream in = zip.getInputStream(entry)) {
        return in.readAllBytes();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + jar, e);
    }
  }

  private static void close(EmbeddedPostgres pg) {
    try {
      pg.close();
    } catch (IOException ignored) {
      // the JVM is exiting anyway
    }
  }
}
