package dev.wharf.store.postgres;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketOption;
import java.util.Properties;
import javax.net.SocketFactory;
import jdk.net.ExtendedSocketOptions;

/**
 * TCP keepalives on both ends of every connection to PostgreSQL, so that a peer gone silent (a
 * host that died, a partition, a NAT that forgot the flow) is found in about a minute instead of
 * the operating system's two hours.
 *
 * <p>Our end: a writer lane or the listener blocked reading an answer that will never come gets
 * an error, drops the connection and connects again. The server's end matters as much: until the
 * server finds a node's session dead it keeps that session's advisory lock, so no other node
 * could run the reapers (no lease would expire anywhere), and the row locks of its open
 * transaction. Keepalives are answered by a live peer's kernel however long its query runs, so a
 * purge that rightly runs long is not cut short by them; nor do they find a peer whose kernel is
 * alive but whose database does not answer, which {@link PgStall}'s read timeout is for.
 *
 * <p>A URL that names its own {@code socketFactory} or {@code tcpKeepAlive} keeps them: the
 * driver lets URL parameters win over these properties.
 */
final class PgKeepAlive {
  /** Silence before the first probe, the gap between probes, and unanswered probes tolerated. */
  static final int IDLE_SECONDS = 30;

  static final int INTERVAL_SECONDS = 10;
  static final int COUNT = 3;

  /**
   * Asks the server to probe this session the same way. One round trip that also reads the
   * session's {@code synchronous_commit}, which the caller needs anyway.
   */
  static final String SESSION_SETTINGS_QUERY =
      "SELECT set_config('tcp_keepalives_idle', '" + IDLE_SECONDS + "', false),"
          + " set_config('tcp_keepalives_interval', '" + INTERVAL_SECONDS + "', false),"
          + " set_config('tcp_keepalives_count', '" + COUNT + "', false),"
          + " current_setting('synchronous_commit')";

  private PgKeepAlive() {}

  /** Driver properties that make every socket it opens a {@link Sockets} one, keepalive on. */
  static void addTo(Properties p) {
    p.setProperty("tcpKeepAlive", "true");
    p.setProperty("socketFactory", Sockets.class.getName());
  }

  /** What the driver instantiates by name: sockets with this class's probe timings set. */
  public static final class Sockets extends SocketFactory {
    public Sockets() {}

    @Override
    public Socket createSocket() throws IOException {
      Socket s = new Socket();
      set(s, ExtendedSocketOptions.TCP_KEEPIDLE, IDLE_SECONDS);
      set(s, ExtendedSocketOptions.TCP_KEEPINTERVAL, INTERVAL_SECONDS);
      set(s, ExtendedSocketOptions.TCP_KEEPCOUNT, COUNT);
      s.setKeepAlive(true);
      return s;
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress local, int localPort)
        throws IOException {
      return connected(new InetSocketAddress(host, port), new InetSocketAddress(local, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress host, int port, InetAddress local, int localPort)
        throws IOException {
      return connected(new InetSocketAddress(host, port), new InetSocketAddress(local, localPort));
    }

    private Socket connected(InetSocketAddress to, InetSocketAddress from) throws IOException {
      Socket s = createSocket();
      try {
        if (from != null) {
          s.bind(from);
        }
        s.connect(to);
        return s;
      } catch (IOException e) {
        s.close();
        throw e;
      }
    }

    /** Platforms without an option keep their own timing for it rather than fail to connect. */
    private static void set(Socket s, SocketOption<Integer> option, int value) throws IOException {
      if (s.supportedOptions().contains(option)) {
        s.setOption(option, value);
      }
    }
  }
}
