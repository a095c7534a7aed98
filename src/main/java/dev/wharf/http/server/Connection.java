package dev.wharf.http.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One client connection, on its event loop: gathers each request's body (bounded), runs the
 * handler (on a virtual thread, or here when it never blocks and the request is small), and keeps
 * answers in request order. A pipelined request waits until the one before it is answered, and
 * the connection stops reading meanwhile. A refused request (malformed, an unknown expectation, a
 * body past the budget) is answered in its turn too, after those read before it; nothing read
 * after it is answered, and the connection closes. A client that shuts its side gets the answers
 * to the requests it sent whole, then the connection closes (see {@link #inputEnded()}).
 */
final class Connection extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = Logger.getLogger(Connection.class.getName());

  private final Handler handler;
  private final ErrorBody errors;
  private final BodyBudget budget;
  private final int idleTicks;
  /** The server stops: close once no answer is owed (shared by every connection). */
  private final AtomicBoolean stopping;

  private ChannelHandlerContext ctx;
  /** The event loop; the caller's thread once the loops have stopped. */
  private final Executor loop =
      task -> {
        try {
          ctx.executor().execute(task);
        } catch (RejectedExecutionException stopped) {
          // The server stopped past its bound: the connection is closed, so the task finds its
          // client gone and gives back what it leased instead of leaving it to expire.
          task.run();
        }
      };
  // The request being read.
  private HttpRequest head;
  private final BodyBeingRead body;
  private boolean skipping;
  // The request being answered, and those read after it.
  private Exchange current;
  private final ReadAhead waiting = new ReadAhead();
  // A request was refused: nothing read after it is taken (see Refusal).
  private final Refusal refusal;
  // The request being read asked for 100 Continue while answers before it were still owed: an
  // interim answer may not overtake them, so it goes once they are out.
  private HttpVersion owedContinue;
  // That 100 Continue went out late, once the answers before it had: quiet periods count from
  // the last bytes read, the headers, so the one under way may end just after it. That end is not
  // held against the client, which so has at least a whole period to start its body. Cleared
  // when bytes come.
  private boolean continuedLate;
  // Bytes came that do not make a whole request yet; quiet periods since the last bytes.
  private boolean partial;
  private int quiet;
  // The client shut its side of the connection: nothing more comes. Read by handlers' threads.
  private volatile boolean inputEnded;
  // The last answer is out and the connection is closing, within LingeringClose's bounds.
  private boolean closing;
  // Whether the client still reads what it is owed, asked at each quiet period.
  private final StalledOutput output = new StalledOutput();

  /**
   * @param idleTicks how many quiet periods in a row (see {@link HttpServer.Limits}) close a
   *     connection that owes and is owed nothing
   * @param stopping set when the server stops (then see {@link #stop()})
   */
  Connection(
      Handler handler,
      ErrorBody errors,
      long maxBody,
      BodyBudget budget,
      int idleTicks,
      AtomicBoolean stopping) {
    this.handler = handler;
    this.errors = errors;
    this.budget = budget;
    this.body = new BodyBeingRead(maxBody, budget);
    this.refusal = new Refusal(errors);
    this.idleTicks = idleTicks;
    this.stopping = stopping;
  }

  /**
   * On the event loop, once the server stops: a connection with no request under way closes now;
   * one being answered, or partly sent a request, closes after that answer, which says so. What
   * was pipelined behind that request is not answered, as after any {@code Connection: close}.
   */
  void stop() {
    if (current == null && head == null && !partial && !closing) {
      ctx.close();
    }
  }

  /** Runs answers on the event loop, or where they completed once it has stopped. */
  Executor executor() {
    return loop;
  }

  /** Whether an answer written now may keep the connection open for another request. */
  boolean keepsOpen(boolean asked) {
    return asked && !stopping.get();
  }

  /** Sits before the HTTP codec: tells the connection that bytes arrived, whole requests or not. */
  final class Arrivals extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      partial = true;
      quiet = 0;
      continuedLate = false;
      ctx.fireChannelRead(msg);
    }
  }

  /**
   * Nothing was read for a quiet period. A request begun and not finished in that time is
   * refused (408), so a client cannot hold a connection by sending slowly; a connection with no
   * request under way closes after {@code idleTicks} periods. One waiting for its answer (a
   * long-poll) is left alone: the wait is the server's.
   */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      inputEnded();
      return;
    }
    if (!(evt instanceof IdleStateEvent)) {
      ctx.fireUserEventTriggered(evt);
      return;
    }
    if (current != null && !closing && output.stalled(ctx.channel())) {
      // The client stopped reading its answer (a stream, a large batch): what it holds stays held
      // until it reads or leaves, so it is told to leave. Its writer hears the write failed.
      ctx.close();
      return;
    }
    if (current != null || closing) {
      return;
    }
    if ((partial || head != null) && continuedLate) {
      // The client may have had this period's last moment to start its body: it gets one more.
      continuedLate = false;
    } else if (partial || head != null) {
      reject(408, "request_timeout", "the request did not arrive in time");
    } else if (++quiet >= idleTicks) {
      ctx.close();
    }
  }

  /**
   * The client shut its side of the connection (or closed it: the two look the same here). The
   * requests it sent whole are answered in order, then the connection closes; one cut off is
   * dropped, as when the client leaves. An exchange that waits on the client (a long-poll, a
   * stream) ends as if it had left, since it may have: messages handed to it now could be written
   * to no one, and it holds none while it waits.
   */
  private void inputEnded() {
    inputEnded = true;
    if (head != null || partial) {
      dropRequestBeingRead();
      partial = false;
    }
    if (current != null && current.waitsOnClient()) {
      ctx.close();
    } else if (current == null && !refusal.made()) {
      // A refusal closes once it is written; with no answer owed, nothing is left to do.
      ctx.close();
    }
  }

  /** Whether the client has shut its side: see {@link #inputEnded()}. */
  boolean inputHasEnded() {
    return inputEnded;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof HttpRequest req) {
        begin(req);
      }
      if (msg instanceof HttpContent content && !skipping && head != null) {
        if (!content.decoderResult().isSuccess()) {
          refuseBody(content.decoderResult());
          return;
        }
        append(content.content());
        if (msg instanceof LastHttpContent) {
          complete(false);
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void begin(HttpRequest req) {
    if (refusal.made() || closing) {
      // Pipelined after a refused request, or after an answer that closes the connection (sent
      // already, while the codec still held this request from the same read): never run, as its
      // answer could not be written.
      return;
    }
    if (!req.decoderResult().isSuccess()) {
      refuse(req.decoderResult());
      return;
    }
    head = req;
    skipping = false;
    body.reset();
    long declared = HeadChecks.declaredBody(req, this);
    if (declared == HeadChecks.REFUSED) {
      return;
    }
    if (body.tooLarge(declared)) {
      // Answered without reading the body; the connection closes after the answer. A client
      // that asked to hear first hears this answer, not 100 Continue.
      complete(true);
    } else if (declared > 0) {
      if (!body.sized(declared)) {
        busy();
        return;
      }
      continueIfAsked(req);
    } else if (declared < 0 && HttpUtil.isTransferEncodingChunked(req)) {
      body.chunked();
      continueIfAsked(req);
    }
  }

  /** The body will be read: a client waiting for leave to send it gets 100 Continue. */
  private void continueIfAsked(HttpRequest req) {
    if (!HttpUtil.is100ContinueExpected(req)) {
      return;
    }
    if (current != null) {
      owedContinue = req.protocolVersion();
      return;
    }
    sendContinue(req.protocolVersion());
  }

  private void sendContinue(HttpVersion version) {
    ctx.writeAndFlush(
        new DefaultFullHttpResponse(version, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
  }

  private void append(ByteBuf bytes) {
    BodyBeingRead.Appended appended = body.append(bytes);
    if (appended == BodyBeingRead.Appended.TOO_LARGE) {
      complete(true);
    } else if (appended == BodyBeingRead.Appended.OVER_BUDGET) {
      busy();
    }
  }

  /** The request is read (or its body refused as too large): queue it for its handler. */
  private void complete(boolean tooLarge) {
    if (closing) {
      // Begun before the connection started closing, its body read after: not run either.
      dropRequestBeingRead();
      partial = false;
      return;
    }
    partial = false;
    // The body came (or is refused) without waiting for leave: no 100 Continue is owed any more.
    owedContinue = null;
    HttpRequest req = head;
    byte[] bytes = null;
    long taken = 0;
    if (tooLarge) {
      body.drop();
    } else {
      bytes = body.bytes();
      taken = body.handOver();
    }
    head = null;
    skipping = tooLarge;
    boolean keepAlive = !tooLarge && HttpUtil.isKeepAlive(req);
    Exchange ex =
        new Exchange(
            ctx,
            this,
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

  /** On the event loop: the answer is written; the next request may go. */
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
    if (inputEnded) {
      ctx.close();
      return;
    }
    if (owedContinue != null) {
      sendContinue(owedContinue);
      owedContinue = null;
      continuedLate = true;
    }
    waiting.resume(ctx.channel());
  }

  /** What the HTTP decoder could not parse: answer it and close, nothing else on it is trusted. */
  private void refuse(DecoderResult result) {
    Throwable cause = result.cause();
    if (cause instanceof TooLongHttpLineException) {
      reject(414, "uri_too_long", "the request line is too long");
    } else if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException) {
      reject(431, "headers_too_large", "the request headers are too large");
    } else {
      reject(400, "invalid_request", "malformed HTTP request: " + cause.getMessage());
    }
  }

  /**
   * What the HTTP decoder could not parse in a body: its one line, a chunk's size line, is not
   * the request line (414), and its trailer fields are not the headers.
   */
  private void refuseBody(DecoderResult result) {
    Throwable cause = result.cause();
    if (cause instanceof TooLongHttpLineException) {
      reject(400, "invalid_request", "a chunk-size line of the body is too long");
    } else if (cause instanceof TooLongHttpHeaderException) {
      reject(400, "invalid_request", "the trailer fields of the body are too large");
    } else {
      refuse(result);
    }
  }

  /** The body does not fit in what the server may hold: refused unread, and the connection closes. */
  private void busy() {
    reject(
        503,
        "server_busy",
        "the server holds as many request bodies as server.max_body_memory allows; retry shortly",
        "1");
  }

  /** Refuses the request being read (see {@link HeadChecks} too), or drops it after a refusal. */
  void reject(int status, String code, String detail) {
    reject(status, code, detail, null);
  }

  /** Forgets the request being read, its head and its body so far, and gives back their bytes. */
  private void dropRequestBeingRead() {
    head = null;
    skipping = true;
    body.drop();
    owedContinue = null;
  }

  private void reject(int status, String code, String detail, String retryAfter) {
    dropRequestBeingRead();
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

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    body.drop();
    waiting.drop(budget);
    refusal.dropOwed();
    if (current != null) {
      // Its handler may never answer now; the bytes go back once, here or when it does.
      current.giveBackBody(budget);
      current.disconnected();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.log(Level.FINE, "connection failed", cause);
    if (cause instanceof DecoderException && ctx.channel().isActive()) {
      // The codec gave up on the bytes: the requests read before them, one maybe committed, are
      // still answered in order, then this refusal.
      reject(400, "invalid_request", "malformed HTTP request");
      return;
    }
    // A reset connection, mostly; the client is gone either way.
    ctx.close();
  }
}
