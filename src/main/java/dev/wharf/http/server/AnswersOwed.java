package dev.wharf.http.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The answers a connection owes, in request order: the request being answered, those read ahead
 * of their turn ({@link ReadAhead}), and the answers that may not overtake them, a refusal
 * ({@link Refusal}) and a 100 Continue. Once the last answer is out the connection closes, within
 * {@link LingeringClose}'s bounds. Event loop only.
 */
final class AnswersOwed {
  private final Connection connection;
  private final Handler handler;
  private final ErrorBody errors;
  private final BodyBudget budget;
  /** The server stops: close once no answer is owed (shared by every connection). */
  private final AtomicBoolean stopping;
  private final QuietPeriods quiet;
  private ChannelHandlerContext ctx;
  // The request being answered, and those read after it.
  private Exchange current;
  private final ReadAhead waiting = new ReadAhead();
  // A request was refused: nothing read after it is taken (see Refusal).
  private final Refusal refusal;
  // The request being read asked for 100 Continue while answers before it were still owed: an
  // interim answer may not overtake them, so it goes once they are out.
  private HttpVersion owedContinue;
  // The last answer is out and the connection is closing, within LingeringClose's bounds.
  private boolean closing;
  // Whether the client still reads what it is owed, asked at each quiet period.
  private final StalledOutput output = new StalledOutput();

  AnswersOwed(
      Connection connection,
      Handler handler,
      ErrorBody errors,
      BodyBudget budget,
      AtomicBoolean stopping,
      QuietPeriods quiet) {
    this.connection = connection;
    this.handler = handler;
    this.errors = errors;
    this.budget = budget;
    this.stopping = stopping;
    this.quiet = quiet;
    this.refusal = new Refusal(errors);
  }

  /** The connection's place in its pipeline, known once it is added there. */
  void attach(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /** Whether no answer is owed and the connection is not closing. */
  boolean idle() {
    return current == null && !closing;
  }

  /** Whether the last answer is out and the connection is closing. */
  boolean closing() {
    return closing;
  }

  /** Whether a request was refused: nothing read after it is taken. */
  boolean refused() {
    return refusal.made();
  }

  /**
   * At a quiet period: whether the client stopped reading the answer under way (see {@link
   * StalledOutput}).
   */
  boolean outputStalled() {
    return current != null && !closing && output.stalled(ctx.channel());
  }

  /** The body will be read: a client waiting for leave to send it gets 100 Continue. */
  void continueIfAsked(HttpRequest req) {
    if (!HttpUtil.is100ContinueExpected(req)) {
      return;
    }
    if (current != null) {
      owedContinue = req.protocolVersion();
      return;
    }
    sendContinue(req.protocolVersion());
  }

  /** The body came, or the request was dropped or refused: no 100 Continue is owed any more. */
  void forgetContinue() {
    owedContinue = null;
  }

  private void sendContinue(HttpVersion version) {
    ctx.writeAndFlush(
        new DefaultFullHttpResponse(version, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
  }

  /**
   * A request is read (or its body refused as too large): it goes to its handler now, or waits
   * for its turn.
   *
   * @param taken what its body took of the server's {@link BodyBudget}
   */
  void take(HttpRequest req, byte[] bytes, boolean tooLarge, long taken) {
    boolean keepAlive = !tooLarge && HttpUtil.isKeepAlive(req);
    Exchange ex =
        new Exchange(
            ctx,
            connection,
            req.protocolVersion(),
            keepAlive,
            req.method().equals(HttpMethod.HEAD),
            taken);
    Request request =
        new Request(
            req.method().name(),
            req.uri(),
            req.headers(),
            bytes,
            tooLarge,
            (InetSocketAddress) ctx.channel().remoteAddress(),
            ex);
    if (current == null) {
      run(ex, request);
    } else {
      waiting.add(ex, request, ctx.channel());
    }
  }

  private void run(Exchange ex, Request req) {
    current = ex;
    output.reset();
    HandlerDispatch.start(handler.route(req), ex, req, errors);
  }

  /** As {@link Connection#finished}. */
  void finished(Exchange ex, boolean keepOpen) {
    if (ex != current) {
      return;
    }
    current = null;
    ex.giveBackBody(budget);
    if (!keepOpen || stopping.get()) {
      waiting.drop(budget);
      refusal.dropOwed();
      closeAfterAnswer();
      return;
    }
    ReadAhead.Queued next = waiting.poll();
    if (next != null) {
      run(next.ex(), next.req());
      return;
    }
    DefaultFullHttpResponse owed = refusal.takeOwed();
    if (owed != null) {
      ctx.writeAndFlush(owed).addListener(f -> closeAfterAnswer());
      return;
    }
    if (connection.inputHasEnded()) {
      ctx.close();
      return;
    }
    if (owedContinue != null) {
      sendContinue(owedContinue);
      owedContinue = null;
      quiet.continuedLate();
    }
    waiting.resume(ctx.channel());
  }

  /**
   * Refuses the request being read, in its turn: after the answers owed to those read before it.
   * Nothing after a refused request is answered, so one refused before it leaves nothing to do.
   */
  void refuse(int status, String code, String detail, String retryAfter) {
    DefaultFullHttpResponse res = refusal.make(status, code, detail, retryAfter);
    if (res == null) {
      return;
    }
    if (current != null) {
      // The requests read before this one are answered first, in order; then this refusal.
      ctx.channel().config().setAutoRead(false);
      refusal.owe(res);
      return;
    }
    ctx.writeAndFlush(res).addListener(f -> closeAfterAnswer());
  }

  /**
   * On the event loop, once the last answer is written. Not a plain close: the client may still
   * be sending what will not be read, and would lose the answer to the reset (see {@link
   * LingeringClose}).
   */
  private void closeAfterAnswer() {
    closing = true;
    LingeringClose.start(ctx.channel());
  }

  /**
   * The client shut its side (see {@link Connection#inputHasEnded()}): an exchange that waits on it
   * ends, and with no answer owed the connection closes.
   */
  void inputEnded() {
    if (current != null && current.waitsOnClient()) {
      ctx.close();
    } else if (current == null && !refusal.made()) {
      // A refusal closes once it is written; with no answer owed, nothing is left to do.
      ctx.close();
    }
  }

  /** The connection closed: nothing owed will be written. */
  void connectionGone() {
    waiting.drop(budget);
    refusal.dropOwed();
    if (current != null) {
      // Its handler may never answer now; the bytes go back once, here or when it does.
      current.giveBackBody(budget);
      current.disconnected();
    }
  }
}
