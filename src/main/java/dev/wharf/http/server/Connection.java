package dev.wharf.http.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One client connection, on its event loop: gathers each request's body (bounded) and hands the
 * request to {@link AnswersOwed}, which runs its handler and keeps answers in request order. A
 * pipelined request waits until the one before it is answered, and the connection stops reading
 * meanwhile. A refused request (malformed, an unknown expectation, a body past the budget) is
 * answered in its turn too, after those read before it; nothing read after it is answered, and
 * the connection closes. A client that shuts its side gets the answers to the requests it sent
 * whole, then the connection closes (see {@link #inputEnded()}).
 */
final class Connection extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = Logger.getLogger(Connection.class.getName());

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
  // The requests read and not yet answered, and the answers that wait for theirs.
  private final AnswersOwed answers;
  // When bytes last came, and what a quiet period since means.
  private final QuietPeriods quiet;
  // The client shut its side of the connection: nothing more comes. Read by handlers' threads.
  private volatile boolean inputEnded;

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
    this.body = new BodyBeingRead(maxBody, budget);
    this.stopping = stopping;
    this.quiet = new QuietPeriods(idleTicks);
    this.answers = new AnswersOwed(this, handler, errors, budget, stopping, quiet);
  }

  /**
   * On the event loop, once the server stops: a connection with no request under way closes now;
   * one being answered, or partly sent a request, closes after that answer, which says so. What
   * was pipelined behind that request is not answered, as after any {@code Connection: close}.
   */
  void stop() {
    if (answers.idle() && head == null && !quiet.partial()) {
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

  /** Sits before the HTTP codec: hears that bytes arrived, whole requests or not. */
  QuietPeriods quietPeriods() {
    return quiet;
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
    if (answers.outputStalled()) {
      // The client stopped reading its answer (a stream, a large batch): what it holds stays held
      // until it reads or leaves, so it is told to leave. Its writer hears the write failed.
      ctx.close();
      return;
    }
    if (!answers.idle()) {
      return;
    }
    if (quiet.partial() || head != null) {
      if (quiet.requestLate()) {
        reject(408, "request_timeout", "the request did not arrive in time");
      }
    } else if (quiet.idle()) {
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
    if (head != null || quiet.partial()) {
      dropRequestBeingRead();
      quiet.requestEnded();
    }
    answers.inputEnded();
  }

  /** Whether the client has shut its side: see {@link #inputEnded()}. */
  boolean inputHasEnded() {
    return inputEnded;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    answers.attach(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof HttpRequest req) {
        begin(req);
      }
      if (msg instanceof HttpContent content && !skipping && head != null) {
        if (!content.decoderResult().isSuccess()) {
          DecoderFailures.refuseBody(content.decoderResult(), this);
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
    if (answers.refused() || answers.closing()) {
      // Pipelined after a refused request, or after an answer that closes the connection (sent
      // already, while the codec still held this request from the same read): never run, as its
      // answer could not be written.
      return;
    }
    if (!req.decoderResult().isSuccess()) {
      DecoderFailures.refuseHead(req.decoderResult(), this);
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
      answers.continueIfAsked(req);
    } else if (declared < 0 && HttpUtil.isTransferEncodingChunked(req)) {
      body.chunked();
      answers.continueIfAsked(req);
    }
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
    if (answers.closing()) {
      // Begun before the connection started closing, its body read after: not run either.
      dropRequestBeingRead();
      quiet.requestEnded();
      return;
    }
    quiet.requestEnded();
    // The body came (or is refused) without waiting for leave: no 100 Continue is owed any more.
    answers.forgetContinue();
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
    answers.take(req, bytes, tooLarge, taken);
  }

  /** On the event loop: the answer is written; the next request may go. */
  void finished(Exchange ex, boolean keepOpen) {
    answers.finished(ex, keepOpen);
  }

  /** The body does not fit in what the server may hold: refused unread; the connection closes. */
  private void busy() {
    reject(
        503,
        "server_busy",
        "the server holds as many request bodies as server.max_body_memory allows; retry shortly",
        "1");
  }

  /**
   * Refuses the request being read (see {@link HeadChecks} and {@link DecoderFailures} too), or
   * drops it after a refusal.
   */
  void reject(int status, String code, String detail) {
    reject(status, code, detail, null);
  }

  /** Forgets the request being read, its head and its body so far, and gives back their bytes. */
  private void dropRequestBeingRead() {
    head = null;
    skipping = true;
    body.drop();
    answers.forgetContinue();
  }

  private void reject(int status, String code, String detail, String retryAfter) {
    dropRequestBeingRead();
    answers.refuse(status, code, detail, retryAfter);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    body.drop();
    answers.connectionGone();
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
