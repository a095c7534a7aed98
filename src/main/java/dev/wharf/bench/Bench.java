package dev.wharf.bench;

import dev.wharf.loopback.HttpConn;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The benchmark harness: drives a running Wharf server over its native HTTP API on loopback. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description = {
      "Measures a running Wharf server on 127.0.0.1 through its native API.",
      "Scenarios: publish, publish-batch, consume, latency, idle-polls, all; and fill.",
      "Each scenario uses a fresh queue bench-<scenario>-<random> and deletes it after;",
      "fill publishes --messages into --queue and leaves them there."
    })
public final class Bench implements Callable<Integer> {
  static final List<String> SCENARIOS =
      List.of("publish", "publish-batch", "consume", "latency", "idle-polls", "all", "fill");

  @Parameters(index = "0", arity = "0..1", defaultValue = "all", paramLabel = "SCENARIO",
      description = "publish, publish-batch, consume, latency, idle-polls, all or fill")
  String scenario;

  @Option(names = "--port", defaultValue = "8080", description = "server port on 127.0.0.1")
  int port;

  @Option(names = "--token", description = "bearer token (admin) when the server needs one")
  String token;

  @Option(names = "--seconds", defaultValue = "10", description = "measured seconds per scenario")
  double seconds;

  @Option(names = "--warmup", defaultValue = "3", description = "warm-up seconds before measuring")
  double warmup;

  @Option(names = "--clients", defaultValue = "64", description = "concurrent clients")
  int clients;

  @Option(names = "--batch", defaultValue = "1",
      description = "consume: messages per receive/ack (and per publish), 1..100; the `all` scenario runs 1 and 100")
  int batch;

  @Option(names = "--publishers", defaultValue = "0", description = "consume: publishers (0 = clients/2)")
  int publishers;

  @Option(names = "--consumers", defaultValue = "0", description = "consume: consumers (0 = clients/2)")
  int consumers;

  @Option(names = "--backlog", defaultValue = "-1",
      description = "consume: publishers wait while this many messages are published and not yet"
          + " acked; 0 = never wait (the backlog grows all run); default 2 x clients x max(batch, 16)")
  long backlog;

  @Option(names = "--queue", defaultValue = "bench-fill", description = "fill: the queue to fill")
  String queue;

  @Option(names = "--messages", defaultValue = "1000000",
      description = "fill: messages to publish (in batches of 100)")
  long messages;

  @Option(names = "--rate", defaultValue = "0",
      description = "latency: publishes per second (default: half the measured publish peak)")
  double rate;

  @Option(names = "--polls", defaultValue = "10000", description = "idle-polls: long-polls to hold")
  int polls;

  @Option(names = "--server-pid", defaultValue = "0",
      description = "idle-polls: server pid for RSS (default: found from the port)")
  long serverPid;

  @Option(names = "--client", defaultValue = "mux",
      description = "HTTP client: socket (minimal keep-alive client, a thread each), mux"
          + " (connections driven by one thread with a selector; the latency scenario's poller"
          + " and acker keep a thread each) or jdk (java.net.http)")
  String client;

  @Option(names = "--threads", defaultValue = "platform",
      description = "client threads: platform (cheapest per request) or virtual")
  String threads;

  @Option(names = "--json", description = "also print one JSON line per scenario")
  boolean json;

  @Option(names = "--repeat", defaultValue = "1",
      description = "run the scenarios this many times, then print the median of each figure")
  int repeat;

  @Option(names = "--probe-dir", description = "where the machine probe's fsyncs go (default: the"
      + " temp dir); give a directory on the server's disk")
  Path probeDir;

  @Option(names = "--no-probe", description = "skip the machine probe printed before the scenarios")
  boolean noProbe;

  private final Medians medians = new Medians();

  public static void main(String[] args) {
    System.exit(new CommandLine(new Bench()).execute(args));
  }

  @Override
  public Integer call() throws IOException {
    if (!SCENARIOS.contains(scenario)) {
      System.err.println("unknown scenario " + scenario + "; one of " + SCENARIOS);
      return 2;
    }
    if (!client.equals("socket") && !client.equals("mux") && !client.equals("jdk")) {
      System.err.println("--client is socket, mux or jdk");
      return 2;
    }
    if (seconds <= 0 || warmup < 0 || clients < 1 || batch < 1 || batch > 100 || polls < 1
        || repeat < 1 || messages < 1) {
      System.err.println("--seconds > 0, --warmup >= 0, --clients >= 1, --batch 1..100,"
          + " --polls >= 1, --repeat >= 1, --messages >= 1");
      return 2;
    }
    if (!threads.equals("platform") && !threads.equals("virtual")) {
      System.err.println("--threads is platform or virtual");
      return 2;
    }
    Target target = new Target(port, token, client.equals("jdk"), client.equals("mux"),
        threads.equals("virtual"));
    if (!reachable(target)) {
      System.err.println("no Wharf server answers GET /healthz on 127.0.0.1:" + port);
      return 1;
    }
    long pid = serverPid > 0 ? serverPid : ServerProcess.pidListeningOn(port);
    Options o = new Options(seconds, warmup, clients, batch, publishers, consumers, rate, polls,
        pid, backlog);
    System.out.printf("wharf bench: 127.0.0.1:%d (server pid %s), %s client on %s threads, %d"
        + " cores%n", port, pid > 0 ? pid : "unknown", client, threads,
        Runtime.getRuntime().availableProcessors());
    if (!noProbe) {
      Path dir = probeDir != null ? probeDir : Path.of(System.getProperty("java.io.tmpdir"));
      try {
        MachineProbe.take(dir).print(System.out, json);
      } catch (IOException e) {
        System.err.println("the machine probe cannot write in " + dir + " (" + e.getMessage()
            + "); give --probe-dir, or --no-probe");
        return 2;
      }
    }
    for (int i = 1; i <= repeat; i++) {
      if (repeat > 1) {
        System.out.printf("-- run %d of %d%n", i, repeat);
      }
      runOnce(target, o, pid);
    }
    if (repeat > 1) {
      for (Result m : medians.medians()) {
        m.print(System.out, json);
      }
    }
    return 0;
  }

  private void runOnce(Target target, Options o, long pid) throws IOException {
    if (scenario.equals("fill")) {
      emit(measured(target, pid, () -> FillScenario.run(target, o, queue, messages)));
      return;
    }
    boolean all = scenario.equals("all");
    double publishPeak = 0;
    if (all || scenario.equals("publish")) {
      Result r = measured(target, pid, () -> PublishScenario.run(target, o, false));
      publishPeak = ((Number) r.get("publish_msg_per_s")).doubleValue();
      emit(r);
    }
    if (all || scenario.equals("publish-batch")) {
      emit(measured(target, pid, () -> PublishScenario.run(target, o, true)));
    }
    if (all || scenario.equals("consume")) {
      for (int b : all ? List.of(1, 100) : List.of(batch)) {
        emit(measured(target, pid, () -> ConsumeScenario.run(target, o, b)));
      }
    }
    if (all || scenario.equals("latency")) {
      double peak = publishPeak;
      emit(measured(target, pid, () -> LatencyScenario.run(target, o, peak)));
    }
    if (all || scenario.equals("idle-polls")) {
      emit(measured(target, pid, () -> IdlePollsScenario.run(target, o, all)));
    }
  }

  private interface Scenario {
    Result run() throws IOException;
  }

  private static Result measured(Target target, long pid, Scenario s) throws IOException {
    CpuMeter cpu = new CpuMeter(pid);
    JitMeter jit = new JitMeter(pid);
    WriteStages writes = new WriteStages(target);
    Result r = s.run();
    cpu.report(r);
    jit.report(r);
    writes.report(r);
    return r;
  }

  private void emit(Result r) {
    r.put("client", client).put("threads", threads);
    r.print(System.out, json);
    medians.add(r);
  }

  private static boolean reachable(Target target) {
    try (HttpConn c = target.conn()) {
      return c.send("GET", "/healthz", null).ok();
    } catch (IOException e) {
      return false;
    }
  }
}
