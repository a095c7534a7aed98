package dev.wharf.http;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A test of one real server with the default settings, started fresh for each test. */
abstract class OneServerTest {
  @TempDir Path dir;
  TestServer server;
  Api api;

  @BeforeEach
  void startServer() {
    server = new TestServer(dir);
    api = server.api;
  }

  @AfterEach
  void stopServer() {
    server.close();
  }
}
