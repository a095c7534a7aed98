package dev.wharf.app;

import dev.wharf.config.QueueConfig;
import dev.wharf.config.StorageConfig;
import dev.wharf.config.WharfConfig;
import dev.wharf.core.Broker;
import dev.wharf.http.WharfHttp;
import dev.wharf.http.server.HttpServer;
import dev.wharf.http.server.Transport;
import dev.wharf.store.Store;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The composition root: config → store → broker → configured queues → HTTP server. {@link #close()}
 * takes them down in the reverse order, so in-flight requests finish before the broker and the
 * database go away.
 */
public final class WharfApp implements AutoCloseable {
  private final WharfConfig config;
  private final Broker broker;
  private final WharfHttp http;
  private final Deque<AutoCloseable> closeOrder;
  private boolean closed;

  private WharfApp(WharfConfig config, Broker broker, WharfHttp http, Deque<AutoCloseable> order) {
    this.config = config;
    this.broker = broker;
    this.http = http;
    this.closeOrder = order;
  }

  /** Starts everything, or nothing: a failure part-way closes what was already started. */
  public static WharfApp start(WharfConfig config) {
    Deque<AutoCloseable> started = new ArrayDeque<>();
    // The driver's native library, the HTTP server and the metrics load on other cores while this
    // one opens the database: after a crash, serving again sooner is what a restart is measured
    // by. `wharf serve` began the warm-up before parsing its command line; waiting for its first
    // step keeps SLF4J from initialising on two threads at once.
    ServerWarmup.begin().join();
    CompletableFuture<PrometheusMeterRegistry> metrics =
        CompletableFuture.supplyAsync(WharfApp::registry, WharfApp::onPlatformThread);
    String step = "open storage (" + config.storage().describe() + ")";
    try {
      Store store = StoreFactory.create(config.storage());
      store.start();
      started.push(store);

      step = "start the broker";
      PrometheusMeterRegistry registry = metrics.join();
      store.bindMetrics(registry);
      Broker broker = new Broker(store, Clock.systemUTC(), config.brokerOptions(), registry);
      broker.start();
      started.push(broker);

      for (QueueConfig q : inApplyOrder(config.queues().values(), broker)) {
        step = "apply queue " + q.name();
        // On a full disk the server starts all the same, and applies the entry once there is
        // room (see Broker#applyConfiguredQueueWhenRoom).
        broker.applyConfiguredQueueWhenRoom(q.name(), q.settings(), q.named());
      }

      step = "listen on " + config.server().host() + ":" + config.server().port();
      WharfHttp http;
      try {
        http = WharfHttp.start(broker, registry, config.httpSettings());
      } catch (HttpServer.CannotBind e) {
        throw new StartupException(
            "cannot " + step + ": the address is in use or not available (" + e.getMessage() + ")",
            e);
      } catch (Transport.Unavailable e) {
        throw new StartupException("cannot " + step + ": " + e.getMessage(), e);
      } catch (java.nio.channels.UnresolvedAddressException e) {
        throw new StartupException(
            "cannot " + step + ": the host " + config.server().host() + " does not resolve", e);
      }
      started.push(http);
      return new WharfApp(config, broker, http, started);
    } catch (RuntimeException e) {
      closeAll(started);
      if (e instanceof StartupException) {
        throw e;
      }
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new StartupException("cannot " + step + ": " + why, e);
    }
  }

  private static PrometheusMeterRegistry registry() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // Heap, threads and process memory next to the queue metrics: capacity questions need both.
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    return registry;
  }

  private static void onPlatformThread(Runnable task) {
    Thread.ofPlatform().name("wharf-start").daemon().start(task);
  }

  public int port() {
    return http.port();
  }

  public Broker broker() {
    return broker;
  }

  public WharfConfig config() {
    return config;
  }

  /** The base URL clients on this machine use. */
  public String url() {
    return baseUrl(config.server().host(), port());
  }

  /**
   * The URL a client on this machine uses for a listen address: wildcard addresses mean this
   * machine, and an IPv6 literal goes in brackets unless it came in them.
   */
  public static String baseUrl(String host, int port) {
    String h =
        switch (host) {
          case "0.0.0.0", "" -> "127.0.0.1";
          case "::", "[::]" -> "[::1]";
          default -> hostForDisplay(host);
        };
    return "http://" + h + ":" + port;
  }

  /**
   * The config's queues, the entries of dead-letter queues first, else in the file's order. An
   * entry that moves a queue off its DLQ makes the DLQ take the queue's tokens; a DLQ entry naming
   * {@code consumer_tokens} applied after that would drop them, and so whether they stayed would
   * depend on where each entry sits in the file.
   */
  private static List<QueueConfig> inApplyOrder(Collection<QueueConfig> queues, Broker broker) {
    Set<String> named = new HashSet<>();
    for (QueueConfig q : queues) {
      if (q.settings().deadLetterQueue() != null) {
        named.add(q.settings().deadLetterQueue());
      }
    }
    List<QueueConfig> out = new ArrayList<>(queues);
    out.sort(
        Comparator.comparing(
            (QueueConfig q) -> !named.contains(q.name()) && !broker.isDeadLetterQueue(q.name())));
    return out;
  }

  /** The one line printed on start. */
  public String startLine() {
    return "wharf listening on http://"
        + hostForDisplay(config.server().host())
        + ":"
        + port()
        + ", storage "
        + storageForDisplay()
        + ", "
        + config.queues().size()
        + " configured queue"
        + (config.queues().size() == 1 ? "" : "s")
        + waitingForRoom()
        + ", transport "
        + http.transport().configName()
        // An admin token's variable left empty turns the token off: the line says which holds.
        + (config.auth().adminToken() == null
            ? ", management from loopback only (no admin token)"
            : ", management by admin token");
  }

  private String waitingForRoom() {
    List<String> waiting = broker.queuesWaitingForRoom();
    return waiting.isEmpty()
        ? ""
        : " (" + String.join(", ", waiting) + " applied once the disk has room; /readyz says so)";
  }

  private String storageForDisplay() {
    if (config.storage() instanceof StorageConfig.Sqlite s) {
      return "sqlite " + s.path().toAbsolutePath().normalize();
    }
    return config.storage().describe();
  }

  private static String hostForDisplay(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  public synchronized boolean isClosed() {
    return closed;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeAll(closeOrder);
  }

  private static void closeAll(Deque<AutoCloseable> started) {
    while (!started.isEmpty()) {
      AutoCloseable c = started.pop();
      try {
        c.close();
      } catch (Exception e) {
        // Keep closing the rest: a failure of the server must not leave the database open.
        System.getLogger(WharfApp.class.getName())
            .log(System.Logger.Level.WARNING, "error while closing " + c, e);
      }
    }
  }
}
