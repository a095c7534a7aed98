package dev.wharf.http.server;

import static dev.wharf.testing.RawHttp.readAll;
import static dev.wharf.testing.RawHttp.readUntil;
import static dev.wharf.testing.RawHttp.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.wharf.testing.RawHttp;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server alone: framing, ordering, limits and disconnects, over raw sockets. This class runs
 * them on the transport {@code auto} picks; its subclasses run them again on each other one the
 * machine offers.
 */
class HttpServerTest {
  private static final long MAX_BODY = 1024;
  /** Short, so the timeouts below are seen within the test; each test ends well before it. */
  private static final Duration STALLED = Duration.ofMillis(300);
  /** Few, so that a test can reach the cap; no other test holds this many at once. */
  private static final int MAX_CONNECTIONS = 6;

  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch parked = new CountDownLatch(1);
  private final CountDownLatch disconnected = new CountDownLatch(1);
  private final AtomicBoolean slowPending = new AtomicBoolean();
  private final AtomicBoolean fastOvertook = new AtomicBoolean();
  private final AtomicInteger parks = new AtomicInteger();
  private final AtomicInteger echoes = new AtomicInteger();
  private final CountDownLatch floodEnded = new CountDownLatch(1);
  private HttpServer server;

  /** The transport under test. */
  Transport transport() {
    return Transport.AUTO;
  }

  @BeforeEach
  void start() throws Exception {
    Router router =
        new Router(
            (req, res, template, allowed) ->
                res.status(template == null ? 404 : 405).send(bytes("unmatched")));
    router.add("POST", "/echo", (req, res) -> {
      echoes.incrementAndGet();
      res.send(echo(req));
    });
    router.add(
        "GET",
        "/slow",
        (req, res) -> {
          slowPending.set(true);
          release.await(500, TimeUnit.MILLISECONDS);
          slowPending.set(false);
          res.send(bytes("slow"));
        });
    router.add(
        "GET",
        "/fast",
        (req, res) -> {
          if (slowPending.get()) {
            fastOvertook.set(true);
          }
          release.countDown();
          res.send(bytes("fast"));
        });
    router.add("GET", "/silent", (req, res) -> {});
    router.add(
        "GET",
        "/park",
        (req, res) -> {
          res.later();
          req.onDisconnect(disconnected::countDown);
          parks.incrementAndGet();
          parked.countDown();
        });
    router.add(
        "GET",
        "/events",
        (req, res) -> {
          try (EventStream s = res.eventStream()) {
            s.comment("hello");
            s.event("message", "1", "a\nb");
            // CR and CR LF end a line for SSE clients as LF does.
            s.event("message", "2", "c\rd\r\ne\r");
          }
        });
    router.add("GET", "/q/{name}", (req, res) -> res.send(bytes(req.param("name"))));
    router.add(
        "GET",
        "/flood",
        (req, res) -> {
          String chunk = "x".repeat(64 * 1024);
          try (EventStream s = res.eventStream()) {
            // Bounded: far more than the sockets' buffers hold, far less than a test's memory.
            for (int i = 0; i < 10_000; i++) {
              s.event("message", Integer.toString(i), chunk);
            }
          } catch (RuntimeException e) {
            floodEnded.countDown();
          }
        });
    server =
        HttpServer.start(
            "127.0.0.1",
            0,
            router,
            (status, code, detail) -> bytes("{\"code\":\"" + code + "\"}"),
            new HttpServer.Limits(
                MAX_BODY, 4 * MAX_BODY, STALLED, STALLED.multipliedBy(2), MAX_CONNECTIONS),
            1,
            transport());
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.close();
  }

  /**
   * A request sent in one write behind one that closes the connection (answered at once, on the
   * event loop) is never run: its answer could not be written, and a client that retried it would
   * have it done twice.
   */
  @Test
  void aRequestPipelinedAfterOneThatClosesIsNotRun() throws Exception {
    String echo = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi";
    for (String first : List.of(
        "GET /nope HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        "GET /nope HTTP/1.0\r\n\r\n")) {
      String answers;
      try (Socket s = RawHttp.connect(server.port())) {
        write(s, first + echo);
        answers = readAll(s);
      }
      assertThat(answers).contains(" 404 ").doesNotContain("hi");
    }
    // Nothing runs it later either.
    Thread.sleep(200);
    assertThat(echoes).hasValue(0);
  }

  /**
   * A client that stops reading a stream: once what it is owed has not moved for a period, the
   * connection closes, and the stream's writer is told, instead of waiting on it for good.
   */
  @Test
  void aStreamWhoseClientStopsReadingEnds() throws Exception {
    try (Socket s = new Socket()) {
      s.setReceiveBufferSize(4096);
      s.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
      write(s, "GET /flood HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(floodEnded.await(10, TimeUnit.SECONDS)).as("the stream ended").isTrue();
    }
  }

  @Test
  void aNonBlockingHandlerRunsOnTheEventLoopUnlessItsBodyIsLarge() throws Exception {
    Handler where =
        (req, res) -> res.send(bytes(Thread.currentThread().isVirtual() ? "thread|" : "loop|"));
    Router router = new Router((req, res, template, allowed) -> res.status(404).send());
    router.add("POST", "/quick", Handler.nonBlocking(where));
    router.add("POST", "/blocking", where);
    int large = HandlerDispatch.INLINE_BODY + 1;
    try (HttpServer roomy =
        HttpServer.start(
            "127.0.0.1",
            0,
            router,
            (status, code, detail) -> bytes(code),
            new HttpServer.Limits(
                2L * large, 2L * large, STALLED, STALLED.multipliedBy(2), MAX_CONNECTIONS),
            1,
            transport())) {
      assertThat(post(roomy, "/quick", 10)).endsWith("loop|");
      assertThat(post(roomy, "/quick", large)).endsWith("thread|");
      assertThat(post(roomy, "/blocking", 10)).endsWith("thread|");
    }
  }

  private static String post(HttpServer server, String path, int bodyLength) throws IOException {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(10_000);
      write(
          s,
          "POST " + path + " HTTP/1.1\r\nHost: t\r\nContent-Length: " + bodyLength + "\r\n\r\n"
              + "x".repeat(bodyLength));
      return readUntil(s, "|");
    }
  }

  @Test
  void theTransportInUseIsTheOneAskedFor() {
    if (transport() == Transport.AUTO) {
      assertThat(server.transport()).isIn(Transport.IO_URING, Transport.EPOLL, Transport.NIO);
    } else {
      assertThat(server.transport()).isEqualTo(transport());
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrderEvenWhenTheFirstIsSlower() throws Exception {
    try (Socket s = connect()) {
      // The slow one answers only when its wait runs out, or when the fast one has started.
      write(s, "GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /fast HTTP/1.1\r\nHost: t\r\n\r\n");
      String both = readUntil(s, "fast");
      assertThat(both.indexOf("slow")).isPositive().isLessThan(both.indexOf("fast"));
      assertThat(fastOvertook).isFalse();
    }
  }

  @Test
  void aChunkedBodyIsGatheredWhole() throws Exception {
    try (Socket s = connect()) {
      write(
          s,
          "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
              + "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n");
      assertThat(readUntil(s, "|")).contains("200 OK").contains("7:abcdefg|");
    }
  }

  @Test
  void aBodyOverTheLimitReachesTheHandlerMarkedAndTheConnectionCloses() throws Exception {
    try (Socket s = connect()) {
      write(s, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n");
      String answer = readAll(s);
      assertThat(answer).contains("too large|").containsIgnoringCase("connection: close");
    }
    try (Socket s = connect()) {
      String big = "x".repeat((int) MAX_BODY + 1);
      write(
          s,
          "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
              + Integer.toHexString(big.length()) + "\r\n" + big + "\r\n0\r\n\r\n");
      assertThat(readAll(s)).contains("too large|");
    }
  }

  @Test
  void aClientThatSendsItsWholeBodyBeforeReadingGetsTheAnswerToABodyOverTheLimit()
      throws Exception {
    // Past what the socket buffers on both sides hold, so most of it comes after the answer.
    byte[] body = new byte[8 << 20];
    for (int i = 0; i < 10; i++) {
      try (Socket s = connect()) {
        OutputStream out = s.getOutputStream();
        out.write(ascii("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length
            + "\r\n\r\n"));
        // Were the connection closed with these bytes unread, this write would meet a reset.
        out.write(body);
        out.flush();
        assertThat(readAll(s)).as("try %d", i).contains("too large|");
      }
    }
  }

  @Test
  void aConnectionClosingAfterAnAnswerWaitsForTheClientOnlySoLong() throws Exception {
    try (Socket s = connect()) {
      write(s, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n");
      // The answer ends with the server's half of the connection; the client keeps its own.
      assertThat(readAll(s)).contains("too large|");
      assertThat(awaitZero(server::connectionsOpen)).isZero();
    }
    try (Socket s = connect()) {
      write(s, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 999999999999\r\n\r\n");
      // A client that sends on and never reads is cut off, by time or by bytes.
      OutputStream out = s.getOutputStream();
      byte[] chunk = new byte[64 << 10];
      long sent = 0;
      long guard = 4L << 30;
      IOException cut = null;
      try {
        while (sent < guard) {
          out.write(chunk);
          sent += chunk.length;
        }
      } catch (IOException e) {
        cut = e;
      }
      assertThat(cut).as("sent %d bytes", sent).isNotNull();
    }
  }

  @Test
  void aBodyIsFramedByItsLengthAloneAndARequestWithNoLengthHasNone() throws Exception {
    try (Socket s = connect()) {
      // What follows a request with neither a length nor chunked coding is the next request.
      write(s, "POST /echo HTTP/1.1\r\nHost: t\r\n\r\nGET /q/next HTTP/1.1\r\nHost: t\r\n\r\n");
      String both = readUntil(s, "next");
      assertThat(both).startsWith("HTTP/1.1 200").contains("0:|");
      assertThat(both.indexOf("0:|")).isLessThan(both.indexOf("next"));
      // And so are the bytes past a Content-Length.
      write(
          s,
          "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nab"
              + "GET /q/after HTTP/1.1\r\nHost: t\r\n\r\n");
      String again = readUntil(s, "after");
      assertThat(again).startsWith("HTTP/1.1 200").contains("2:ab|");
      assertThat(again.indexOf("2:ab|")).isLessThan(again.indexOf("after"));
    }
  }

  @Test
  void expectContinueIsAnsweredBeforeTheBodyIsSent() throws Exception {
    try (Socket s = connect()) {
      write(
          s,
          "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
      assertThat(readUntil(s, "\r\n\r\n")).startsWith("HTTP/1.1 100 Continue");
      write(s, "hi");
      assertThat(readUntil(s, "|")).contains("2:hi|");
    }
    try (Socket s = connect()) {
      write(
          s,
          "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n"
              + "Expect: 100-continue\r\n\r\n");
      assertThat(readUntil(s, "\r\n\r\n")).startsWith("HTTP/1.1 100 Continue");
      write(s, "2\r\nhi\r\n0\r\n\r\n");
      assertThat(readUntil(s, "|")).contains("2:hi|");
    }
  }

  @Test
  void aBodyThatWillNotBeReadGetsItsAnswerInsteadOf100Continue() throws Exception {
    try (Socket s = connect()) {
      write(
          s,
          "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n"
              + "Expect: 100-continue\r\n\r\n");
      // The body is never sent: the client waits for leave that does not come.
      String answer = readAll(s);
      assertThat(answer).startsWith("HTTP/1.1 200").contains("too large|");
      assertThat(answer).doesNotContain("100 Continue");
    }
    try (Socket s = connect()) {
      write(s, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: tea\r\n\r\n");
      assertThat(readAll(s)).startsWith("HTTP/1.1 417").contains("expectation_failed");
    }
  }

  @Test
  void anHttp10RequestWithoutKeepAliveClosesAfterItsAnswer() throws Exception {
    try (Socket s = connect()) {
      write(s, "GET /fast HTTP/1.0\r\n\r\n");
      assertThat(readAll(s)).startsWith("HTTP/1.0 200").endsWith("fast");
    }
  }

  @Test
  void aHandlerThatNeverAnswersGetsA500() throws Exception {
    try (Socket s = connect()) {
      write(s, "GET /silent HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(readUntil(s, "}")).startsWith("HTTP/1.1 500").contains("\"internal\"");
    }
  }

  @Test
  void aClientThatLeavesWhileItsAnswerWaitsIsNoticed() throws Exception {
    try (Socket s = connect()) {
      write(s, "GET /park HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(parked.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(disconnected.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void malformedRequestsAreJsonErrorsAndCloseTheConnection() throws Exception {
    try (Socket s = connect()) {
      write(s, "GET /fast HTTP/1.1\r\nHost: t\r\n" + "X-Big: " + "y".repeat(20_000) + "\r\n\r\n");
      assertThat(readAll(s)).startsWith("HTTP/1.1 431").contains("headers_too_large");
    }
    try (Socket s = connect()) {
      write(s, "GET /" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(readAll(s)).startsWith("HTTP/1.1 414").contains("uri_too_long");
    }
  }

  @Test
  void anEventStreamIsChunkedAndTheConnectionServesTheNextRequest() throws Exception {
    try (Socket s = connect()) {
      write(s, "GET /events HTTP/1.1\r\nHost: t\r\n\r\nGET /fast HTTP/1.1\r\nHost: t\r\n\r\n");
      String all = readUntil(s, "fast");
      assertThat(all)
          .contains("text/event-stream")
          .containsIgnoringCase("transfer-encoding: chunked")
          .contains(": hello\n\n")
          .contains("event: message\nid: 1\ndata: a\ndata: b\n\n")
          .contains("event: message\nid: 2\ndata: c\ndata: d\ndata: e\ndata: \n\n")
          .doesNotContain("\r\ndata");
      assertThat(all.indexOf("data: b")).isLessThan(all.indexOf("fast"));
    }
  }

  @Test
  void anEventStreamToAnHttp10ClientIsNotChunkedAndEndsWithTheConnection() throws Exception {
    try (Socket s = connect()) {
      // Even when it asks to keep the connection: the stream's end is the connection's.
      write(s, "GET /events HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
      String all = readAll(s);
      assertThat(all).startsWith("HTTP/1.0 200").containsIgnoringCase("connection: close\r\n");
      assertThat(all.toLowerCase(java.util.Locale.ROOT)).doesNotContain("transfer-encoding");
      assertThat(all.substring(all.indexOf("\r\n\r\n") + 4))
          .isEqualTo(": hello\n\nevent: message\nid: 1\ndata: a\ndata: b\n\n"
              + "event: message\nid: 2\ndata: c\ndata: d\ndata: e\ndata: \n\n");
    }
  }

  @Test
  void pathParametersArePercentDecodedAndUnknownPathsAreTheFallbacks() throws Exception {
    try (Socket s = connect()) {
      write(s, "GET /q/a%20b+c HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(readUntil(s, "a b+c")).startsWith("HTTP/1.1 200");
      write(s, "DELETE /q/x HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(readUntil(s, "unmatched")).startsWith("HTTP/1.1 405");
      write(s, "GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(readUntil(s, "unmatched")).startsWith("HTTP/1.1 404");
    }
  }

  @Test
  void aRequestSentTooSlowlyIsRefusedAndAnIdleConnectionCloses() throws Exception {
    try (Socket s = connect()) {
      write(s, "GET /fast HTTP/1.1\r\nHost: t\r\n");
      // The rest of the headers never come: refused once the line has been quiet too long.
      assertThat(readAll(s)).startsWith("HTTP/1.1 408").contains("request_timeout");
    }
    try (Socket s = connect()) {
      write(s, "GET /fast HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(readUntil(s, "fast")).startsWith("HTTP/1.1 200");
      // Nothing more is asked: the server closes it, with nothing written.
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void aLongPollIsNotCutByTheIdleLimits() throws Exception {
    try (Socket s = connect()) {
      // /slow answers after 500 ms, past the 300 ms quiet period: it is the server's wait.
      write(s, "GET /slow HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(readUntil(s, "slow")).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void headIsGetWithoutTheBody() throws Exception {
    try (Socket s = connect()) {
      write(s, "HEAD /fast HTTP/1.1\r\nHost: t\r\n\r\nGET /fast HTTP/1.1\r\nHost: t\r\n\r\n");
      String both = readUntil(s, "fast");
      // The HEAD answer declares the 4 bytes GET sends, and the next answer follows at once.
      assertThat(both).startsWith("HTTP/1.1 200").containsIgnoringCase("content-length: 4");
      assertThat(both.indexOf("fast")).isEqualTo(both.lastIndexOf("fast"));
      assertThat(both.indexOf("HTTP/1.1 200", 1)).isPositive().isLessThan(both.indexOf("fast"));
    }
  }

  @Test
  void aClientThatHalfClosesAfterItsRequestsGetsEveryAnswerThenTheClose() throws Exception {
    try (Socket s = connect()) {
      // /slow is still under way when the end of the client's input is read.
      write(
          s,
          "GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /fast HTTP/1.1\r\nHost: t\r\n\r\n"
              + "GET /q/last HTTP/1.1\r\nHost: t\r\n\r\n");
      s.shutdownOutput();
      String all = readAll(s);
      assertThat(all).startsWith("HTTP/1.1 200").endsWith("last");
      assertThat(all.indexOf("slow")).isPositive().isLessThan(all.indexOf("fast"));
      assertThat(all.split("HTTP/1.1 200 ", -1)).hasSize(4);
    }
  }

  @Test
  void aRequestCutOffByTheClientsHalfCloseIsDroppedAndItsBodyGivenBack() throws Exception {
    try (Socket s = connect()) {
      write(
          s,
          "GET /q/first HTTP/1.1\r\nHost: t\r\n\r\n"
              + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc");
      s.shutdownOutput();
      String all = readAll(s);
      assertThat(all).startsWith("HTTP/1.1 200").endsWith("first");
    }
    assertThat(awaitZero(server::bodyBytesHeld)).isZero();
    try (Socket s = connect()) {
      // Cut in its headers: refused, as any request that is not whole.
      write(s, "GET /fast HTTP/1.1\r\nHost: t\r\n");
      s.shutdownOutput();
      assertThat(readAll(s)).startsWith("HTTP/1.1 400").doesNotContain("fast");
    }
  }

  @Test
  void aWaitForTheClientEndsWhenItHalfClosesAsWhenItLeaves() throws Exception {
    try (Socket s = connect()) {
      write(s, "GET /park HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(parked.await(10, TimeUnit.SECONDS)).isTrue();
      // The end of its input cannot be told from its leaving: the wait it holds ends.
      s.shutdownOutput();
      assertThat(disconnected.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(readAll(s)).isEmpty();
    }
  }

  @Test
  void aWaitForTheClientBegunAfterItHalfClosedEndsToo() throws Exception {
    try (Socket s = connect()) {
      // /park starts only once /slow is answered, after the end of the input was read.
      write(s, "GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /park HTTP/1.1\r\nHost: t\r\n\r\n");
      s.shutdownOutput();
      assertThat(disconnected.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(readAll(s)).startsWith("HTTP/1.1 200").endsWith("slow");
    }
  }

  @Test
  void anyNumberOfPipelinedRequestsInOneWriteAreEachAnsweredInOrder() throws Exception {
    int n = 600;
    StringBuilder requests = new StringBuilder();
    for (int i = 0; i < n; i++) {
      requests.append("GET /q/r").append(1000 + i).append(" HTTP/1.1\r\nHost: t\r\n");
      requests.append(i == n - 1 ? "Connection: close\r\n\r\n" : "\r\n");
    }
    try (Socket s = connect()) {
      write(s, requests.toString());
      String all = readAll(s);
      int at = 0;
      for (int i = 0; i < n; i++) {
        int next = all.indexOf("r" + (1000 + i), at);
        assertThat(next).as("answer %d", i).isGreaterThanOrEqualTo(at);
        at = next;
      }
      assertThat(all.split("HTTP/1.1 200 ", -1)).hasSize(n + 1);
    }
  }

  @Test
  void aPipelinedRequestThatIsRefusedIsAnsweredAfterTheOnesBeforeItAndNothingAfter()
      throws Exception {
    try (Socket s = connect()) {
      // One write: /fast is still being answered (on its own thread) when the next is read.
      write(
          s,
          "GET /fast HTTP/1.1\r\nHost: t\r\n\r\n"
              + "GET /q/second HTTP/1.1\r\nHost: t\r\n\r\n"
              + "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: a-miracle\r\nContent-Length: 2\r\n\r\nab"
              + "GET /q/after HTTP/1.1\r\nHost: t\r\n\r\n");
      String all = readAll(s);
      assertThat(all).startsWith("HTTP/1.1 200");
      assertThat(all.indexOf("fast")).isLessThan(all.indexOf("second"));
      assertThat(all.indexOf("second")).isLessThan(all.indexOf("HTTP/1.1 417"));
      assertThat(all).contains("expectation_failed").doesNotContain("after");
    }
  }

  @Test
  void aPipelinedRequestHearsContinueOnlyAfterTheAnswersBeforeIt() throws Exception {
    try (Socket s = connect()) {
      // /slow is answered 500 ms after it is read; the POST waits for leave to send its body.
      write(
          s,
          "GET /slow HTTP/1.1\r\nHost: t\r\n\r\n"
              + "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
      String first = readUntil(s, "100 Continue");
      assertThat(first).startsWith("HTTP/1.1 200").contains("slow");
      assertThat(first.indexOf("slow")).isLessThan(first.indexOf("HTTP/1.1 100"));
      write(s, "ab");
      assertThat(readUntil(s, "|")).contains("2:ab|");
    }
  }

  @Test
  void atTheConnectionCapANewConnectionWaitsUntilOneCloses() throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < MAX_CONNECTIONS; i++) {
        Socket s = connect();
        held.add(s);
        // Each waits for an answer, so the idle limit (600 ms here) cannot close it while the
        // test, however slowly it runs, is still opening the others.
        write(s, "GET /park HTTP/1.1\r\nHost: t\r\n\r\n");
        awaitParks(i + 1);
      }
      assertThat(server.connectionsOpen()).isEqualTo(MAX_CONNECTIONS);
      try (Socket late = connect()) {
        // The kernel completes the handshake; the server has not accepted it.
        write(late, "GET /q/late HTTP/1.1\r\nHost: t\r\n\r\n");
        late.setSoTimeout(300);
        assertThatThrownBy(() -> late.getInputStream().read())
            .isInstanceOf(SocketTimeoutException.class);
        held.removeFirst().close();
        late.setSoTimeout(10_000);
        assertThat(readUntil(late, "late")).startsWith("HTTP/1.1 200");
      }
      assertThat(server.acceptPauses()).isPositive();
      assertThat(server.connectionsRefused()).isZero();
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  /** Waits until {@code n} requests to /park are being answered later. */
  private void awaitParks(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (parks.get() < n) {
      assertThat(System.nanoTime()).as("%d parked in time", n).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static byte[] echo(Request req) {
    String body =
        req.bodyTooLarge()
            ? "too large|"
            : req.body().length + ":" + new String(req.body(), StandardCharsets.UTF_8) + "|";
    return bytes(body);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private Socket connect() throws IOException {
    return RawHttp.connect(server.port());
  }

  /** What {@code value} reads once it reaches zero, or after 10 s (a hang guard) what it reads. */
  private static long awaitZero(java.util.function.LongSupplier value) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (value.getAsLong() > 0 && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    return value.getAsLong();
  }
}
