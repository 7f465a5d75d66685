import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

// The request log: one line a request at info, written when its
// answer has gone, saying what a person scanning a terminal or a log wants:
// method, URL, status, time and request id, in the message and as fields
// (`reqId`, `method`, `url`, `statusCode`, `responseTime` in ms). Fastify's
// default is two lines (`incoming request` with host, address and port, then
// `request completed`), fifteen in a terminal through pino-pretty; what came
// in is now a line at debug. A client that leaves before its answer has gone
// (a stream or a long-poll it stops reading) still has its one line, saying
// so (Fastify's own `stream closed prematurely` is at debug). Errors are
// logged in full where they happen (http/error-handler.ts), and an answer that
// failed while being sent is this line at error with its `err`. A route with
// its own level (the ops routes at warn) writes neither line at info. In a
// terminal the line is its message and request id alone (startup.ts
// terminalLine), which is why only this line carries `responseTime`.
//
// Fastify's LogController is where its own request lines are written, the
// requests it refuses before routing (a URL it cannot decode) included.

export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
    // A client that leaves before its answer has gone (a stream or a long-poll it stops
    // reading) gets no requestCompleted from Fastify: its line is written when it leaves.
    if (!(request.log as Logger).isLevelEnabled('info')) return;
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) this.line(null, request, reply, reply.elapsedTime, true);
    });
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    this.line(error, request, reply, reply.elapsedTime);
  }

  /**
   * A request Fastify answers before routing it (app.ts frameworkErrors: a URL
   * it cannot decode, a path segment too long): Fastify writes no line when
   * that answer has gone, so its line is written here.
   */
  refusedBeforeRouting(request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const started = performance.now();
    reply.raw.once('finish', () => this.line(null, request, reply, performance.now() - started));
  }

  /** Each request's line, once (a client leaving and a late end of its answer would both write it). */
  private readonly written = new WeakSet<FastifyReply>();

  private line(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, ms: number, clientLeft = false): void {
    // Nothing to build when the line would not be written (a phrase answers thousands of long-polls at once).
    if (!(reply.log as Logger).isLevelEnabled(error ? 'error' : 'info')) return;
    if (this.written.has(reply)) return;
    this.written.add(reply);
    const responseTime = Math.round(ms * 10) / 10;
    // Left before any answer: there is no status to tell.
    const statusCode = clientLeft && !reply.raw.headersSent ? null : reply.statusCode;
    const fields = { method: request.method, url: request.url, statusCode, responseTime, ...(clientLeft ? { clientLeft } : {}) };
    const text = `${request.method} ${request.url} ${statusCode ?? '-'} ${responseTime} ms${clientLeft ? ' (the client left)' : ''}`;
    if (error) reply.log.error({ ...fields, err: error }, text);
    else reply.log.info(fields, text);
  }

  override streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') reply.log.debug('stream closed prematurely');
    else super.streamError(error, request, reply);
  }
}
