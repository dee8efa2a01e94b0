// Around every request: its id, timing, access log and metrics, and the one place an error becomes
// the service's error body; and the HTTP server's own refusals (headers over its limit) in that body.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { mapError } from './errors.js';
import { serviceError } from './service-errors.js';
import { stackWithoutMessage } from './log.js';
import type { Metrics } from './metrics.js';
import type { KeyGrant, Logger, Manifest } from './types.js';

/** What guardServer needs of the app: its error table and logger. */
export interface ServedApp {
  readonly manifest: Manifest;
  readonly services: { readonly log: Logger };
}

export const HANG_UPS = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

/**
 * The HTTP server's own refusals, answered with the service's error body: a request line or headers
 * over the server's limit (a query string of a megabyte) is 431, and the rest of what the client
 * sends is read and dropped before the connection closes, so the client reads the answer instead of
 * a reset. Anything else malformed is Node's plain 400.
 */
export function guardServer(server: Server, app: ServedApp): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code !== 'HPE_HEADER_OVERFLOW' || !socket.writable) return void socket.destroy();
    const mapped = mapError(
      serviceError('HeaderTooLarge', "The request line and headers are over the server's limit (16 KB): a query string that long cannot be served"),
      app.manifest.errors,
    );
    const body = JSON.stringify(mapped.body);
    socket.on('data', () => undefined); // drained, not left unread: closing over unread data would reset the connection
    socket.end(
      `HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\nContent-Length: ` +
        `${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), 5000).unref();
    app.services.log.info('request refused: headers too large', { status: 431 });
  });
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Request id, timing, access log, metrics and the one place errors become bodies. */
export function requestContext(manifest: Manifest, metrics: Metrics, log: Logger, inner: (ctx: Koa.Context) => unknown): Koa.Middleware {
  const prefix = randomBytes(6).toString('hex');
  let counter = 0;
  return async (ctx) => {
    const started = performance.now();
    // A proxy's id is kept so logs line up across hops; otherwise a per-process prefix and counter
    // are unique, cheaper than a UUID per request, and reveal nothing.
    const given = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(given) ? given : `${prefix}-${(++counter).toString(36)}`;
    ctx.state.requestId = requestId;
    try {
      await inner(ctx);
    } catch (error) {
      if (hungUp(ctx)) hangUp(ctx, requestId, log);
      else writeError(ctx, error, manifest, requestId, log);
    } finally {
      stampRequestId(ctx);
      const seconds = (performance.now() - started) / 1000;
      const route = (ctx.state.route as string | undefined) ?? 'unmatched';
      metrics.observeRequest(route, ctx.method, ctx.status, seconds);
      if (ctx.status >= 500)
        log.warn('request failed', { request_id: requestId, ...keyField(ctx), method: ctx.method, route, status: ctx.status, ms: Math.round(seconds * 1000) });
    }
  };
}

/**
 * The request id on the answer, set once the answer is made rather than first: a route's data is
 * written with its headers in one list (pipeline/respond.ts), which a header set before would undo.
 * An answer whose head was sent already (data, a stream flushed early) carries it by its writer.
 */
export function stampRequestId(ctx: Koa.Context): void {
  if (!ctx.res.headersSent) ctx.set('X-Request-ID', ctx.state.requestId as string);
}

/** The name of the request's API key, on every log line of the request (never the key). */
const keyField = (ctx: Koa.Context): { key?: string } => (ctx.state.key ? { key: (ctx.state.key as KeyGrant).name } : {});

/** The client closed the connection before its body was all sent: whatever failed then, it was not the service. */
function hungUp(ctx: Koa.Context): boolean {
  return !ctx.req.complete && (ctx.req.destroyed || ctx.req.socket.destroyed);
}

/** One info line naming it; the answer (a 400 nobody reads) is not an error of the service's. */
function hangUp(ctx: Koa.Context, requestId: string, log: Logger): void {
  log.info('client hung up mid-body', { request_id: requestId, method: ctx.method, route: (ctx.state.route as string | undefined) ?? ctx.path });
  ctx.status = 400;
  ctx.body = '';
}

function writeError(ctx: Koa.Context, error: unknown, manifest: Manifest, requestId: string, log: Logger): void {
  const mapped = mapError(error, manifest.errors);
  if (mapped.status === 500) log.error('unhandled error', { request_id: requestId, ...keyField(ctx), error: stackWithoutMessage(error) });
  ctx.status = mapped.status;
  if (mapped.retryAfter !== undefined) ctx.set('Retry-After', String(mapped.retryAfter));
  if (mapped.headers) ctx.set(mapped.headers);
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ ...mapped.body, request_id: requestId });
}
