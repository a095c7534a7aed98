package dev.wharf.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;

class PgKeepAliveTest {
  @Test
  void theDriversSocketsProbeASilentPeerWithinAMinute() throws Exception {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    try (ServerSocket server = new ServerSocket(0, 1, loopback);
        Socket s = new PgKeepAlive.Sockets().createSocket(loopback, server.getLocalPort())) {
      assertThat(s.isConnected()).isTrue();
      assertThat(s.getKeepAlive()).isTrue();
      assertThat(s.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(30);
      assertThat(s.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL)).isEqualTo(10);
      assertThat(s.getOption(ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(3);
    }
  }

  @Test
  void theServerProbesEverySessionOfTheStoreTheSameWay() throws Exception {
    PostgresStore store = new PostgresStore(TestDatabase.freshSchema(2));
    store.start();
    try (PgReads reads = new PgReads(TestDatabase.freshSchema(1), 1, "wharf-test-reads",
        new PgHealth(), PgKeepAlive.SESSION_SETTINGS_QUERY);
        Connection writer = store.connect()) {
      assertThat(keepAlives(writer)).isEqualTo("30 10 3");
      assertThat(reads.read(PgKeepAliveTest::keepAlives)).isEqualTo("30 10 3");
    } finally {
      store.close();
    }
  }

  private static String keepAlives(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('tcp_keepalives_idle') || ' '"
            + " || current_setting('tcp_keepalives_interval') || ' '"
            + " || current_setting('tcp_keepalives_count')")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
