// The request listener the service serves with: Koa's own callback, but an answer the engine wrote
// itself does not go through Koa's handleRequest.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';

/** Koa's (undocumented) step behind its callback: it listens for the answer's end, then writes what the middleware left. */
interface KoaInternals {
  handleRequest(ctx: Koa.Context, middleware: (ctx: Koa.Context) => Promise<void>): Promise<void>;
}

export type ServedCallback = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const nothingNext = (): Promise<void> => Promise.resolve();

/**
 * Koa's callback attaches on-finished to every answer before the middleware runs: listeners on the
 * response and on its socket, taken off again at its end, so that a socket failing after the head
 * went out reaches the app's 'error' event. That is the dearest single step of Koa's own: 5-6 µs of
 * the 120-130 µs a request takes on the bench machine (paired single requests, bench/hotpath.md).
 * The route's data is written whole, head and body at once, by the engine (pipeline/respond.ts sets
 * ctx.respond false): a socket failing after that is a client that left, which the app's 'error'
 * listener ignores anyway. So the middleware runs first, and an answer Koa must write (a body, a
 * stream, a file, an error of the middleware itself) goes through Koa's own handleRequest as before:
 * on-finished attached, then Koa's respond.
 */
export function servedCallback(koa: Koa, middleware: Koa.Middleware): ServedCallback {
  const internals = koa as unknown as KoaInternals;
  // As Koa's callback does: an app without an 'error' listener of its own logs through Koa's, since
  // an 'error' event nobody hears would throw. (Koa's asyncLocalStorage option is not used here.)
  if (!koa.listenerCount('error')) koa.on('error', koa.onerror);
  return (req, res) => {
    const ctx = koa.createContext(req, res);
    res.statusCode = 404; // Koa's answer until the middleware sets one
    return ran(middleware, ctx).then(
      () => (ctx.respond === false ? undefined : koaWrites(internals, ctx)),
      (error: Error) => ctx.onerror(error),
    );
  };
}

/** As Koa's compose runs a middleware: a plain function's answer or throw as a promise (the service's own is async: its promise as it is). */
function ran(middleware: Koa.Middleware, ctx: Koa.Context): Promise<unknown> {
  try {
    return Promise.resolve(middleware(ctx, nothingNext));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Koa's handleRequest starts every answer at 404: the middleware has run already, so its status is put back first. */
function koaWrites(koa: KoaInternals, ctx: Koa.Context): Promise<void> {
  const status = ctx.res.statusCode;
  return koa.handleRequest(ctx, () => {
    ctx.res.statusCode = status;
    return Promise.resolve();
  });
}
