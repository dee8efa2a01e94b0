// Respond: the only place a body is written. JSON for data; files and streams are piped with their
// content type, length and filename, and cleaned up once the client has them.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ParameterizedContext } from 'koa';
import { serviceError } from '../service-errors.js';
import type { FileResult, JsonText, ReplyResult, RouteSpec, StreamResult } from '../types.js';
import type { RequestState } from './request.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Synchronous for data (the hot path); a promise only when a file must be looked at first. */
export function respond(ctx: ParameterizedContext, route: RouteSpec, body: unknown, state: RequestState): Promise<void> | void {
  if (route.result.body === 'json' && isPlainData(body)) return respondData(ctx, route, body, state);
  replyMeta(ctx, state);
  if (isFile(body)) return respondFile(ctx, body, state);
  if (isStream(body)) return respondStream(ctx, body, state);
  if (isJsonText(body)) return respondJsonText(ctx, body);
  if (isReply(body)) return respondReply(ctx, body);
  // What is left is a route whose answer is not JSON (JSON data went first).
  ctx.type = route.result.contentType;
  ctx.body = body;
}

/** What the route's guards added to the answer (RateLimit, a replay's marker) on an answer Koa writes, a refusal's too. */
export function replyMeta(ctx: ParameterizedContext, state: RequestState): void {
  for (const name in state.reply.headers) ctx.set(name, state.reply.headers[name]);
}

/** Statuses whose answers carry no body (Koa leaves the body off them). */
const EMPTY_STATUSES = new Set([204, 205, 304]);

const statusOf = (route: RouteSpec, state: RequestState): number | undefined => {
  const status = state.reply.status ?? route.result.options.status;
  return typeof status === 'number' ? status : undefined;
};

/**
 * Data, the hot path: the engine writes the head and the body at once, the headers handed to Node
 * as one flat list (writeHead with nothing set before stores no header object and validates each
 * once: a quarter less of Node's own work on the answer than a header set at a time, as Koa does).
 * A header set before (none is, on this path) is merged by Node. HEAD, a status without a body, or
 * a head already sent go Koa's way.
 */
function respondData(ctx: ParameterizedContext, route: RouteSpec, body: unknown, state: RequestState): void {
  const text = JSON.stringify(body) as string | undefined;
  const given = statusOf(route, state);
  const status = given ?? 200;
  const res = ctx.res;
  // JSON.stringify answers undefined for nothing to send (Koa then answers 204).
  if (text === undefined || ctx.method === 'HEAD' || EMPTY_STATUSES.has(status) || res.headersSent) {
    replyMeta(ctx, state);
    respondJsonThroughKoa(ctx, text, given);
    return;
  }
  const head: string[] = ['X-Request-ID', state.requestId];
  for (const name in state.reply.headers) head.push(name, state.reply.headers[name]);
  head.push('Content-Type', JSON_TYPE, 'Content-Length', String(Buffer.byteLength(text)));
  ctx.respond = false; // written here, so Koa's own respond leaves it
  if (!ctx.writable) return;
  res.writeHead(status, head);
  res.end(text);
}

function respondJsonThroughKoa(ctx: ParameterizedContext, text: string | undefined, status: number | undefined): void {
  // Set before the body, so Koa does not sniff the string for a type of its own.
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = text;
  if (status !== undefined) ctx.status = status;
}

/** A large document: cached by ETag (304 when unchanged) and compressed as the client accepts. */
function respondJsonText(ctx: ParameterizedContext, doc: JsonText): void {
  ctx.set('Content-Type', JSON_TYPE);
  if (!doc.etag || !doc.compressed) {
    ctx.body = doc.text;
    return;
  }
  sendTagged(ctx, { body: doc.text, etag: doc.etag, compressed: doc.compressed }, 'no-cache');
}

/** A body that never changes, tagged once; `compressed` is absent for bytes compressed already (an image). */
export interface TaggedBody {
  readonly body: Buffer | string;
  readonly etag: string;
  readonly compressed?: (encoding: 'br' | 'gzip') => Buffer;
}

/**
 * Sends a tagged body (the content type already set): 304 when the client holds this very one,
 * else compressed as the client accepts. The OpenAPI document and the /docs assets go this way.
 */
export function sendTagged(ctx: ParameterizedContext, tagged: TaggedBody, cacheControl: string): void {
  ctx.set('ETag', tagged.etag);
  ctx.set('Cache-Control', cacheControl);
  if (tagged.compressed) ctx.vary('Accept-Encoding');
  if (ctx.get('If-None-Match') === tagged.etag) {
    ctx.status = 304;
    return;
  }
  const encoding = tagged.compressed ? ctx.acceptsEncodings('br', 'gzip', 'identity') : 'identity';
  if (tagged.compressed && (encoding === 'br' || encoding === 'gzip')) {
    ctx.set('Content-Encoding', encoding);
    ctx.body = tagged.compressed(encoding);
    return;
  }
  ctx.body = tagged.body;
}

async function respondFile(ctx: ParameterizedContext, file: FileResult, state: RequestState): Promise<void> {
  if (file.cleanup) state.defer(file.cleanup);
  const info = await stat(file.path).catch(() => undefined);
  if (!info?.isFile()) throw serviceError('UpstreamFileMissing', 'The upstream reported a file it did not write');
  ctx.type = file.contentType;
  ctx.length = info.size;
  ctx.attachment(file.filename, { type: 'attachment' });
  ctx.body = createReadStream(file.path);
}

function respondStream(ctx: ParameterizedContext, result: StreamResult, state: RequestState): void {
  if (result.cleanup) state.defer(result.cleanup);
  ctx.type = result.contentType;
  if (result.length !== undefined) ctx.length = result.length;
  if (result.headers) ctx.set(result.headers);
  if (result.filename) ctx.attachment(result.filename, { type: 'attachment' });
  ctx.body = result.stream;
}

/**
 * Cookies are HttpOnly (no script reads them), SameSite=Strict (no other site sends them) and
 * Secure whenever the request came over TLS (directly or, with --trust-proxy, through a proxy).
 */
function respondReply(ctx: ParameterizedContext, reply: ReplyResult): void {
  for (const cookie of reply.cookies) {
    ctx.cookies.set(cookie.name, cookie.value, {
      httpOnly: true,
      sameSite: 'strict',
      secure: ctx.secure,
      path: '/',
      maxAge: cookie.maxAgeSeconds * 1000,
      overwrite: true,
    });
  }
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = JSON.stringify(reply.body);
}

export function fileFromPath(path: string, contentType: (path: string) => string): FileResult {
  return { kind: 'file', path, filename: basename(path), contentType: contentType(path) };
}

function isFile(value: unknown): value is FileResult {
  return !!value && typeof value === 'object' && (value as FileResult).kind === 'file';
}

function isStream(value: unknown): value is StreamResult {
  return !!value && typeof value === 'object' && (value as StreamResult).kind === 'stream';
}

function isReply(value: unknown): value is ReplyResult {
  return !!value && typeof value === 'object' && (value as ReplyResult).kind === 'reply';
}

/** Data a route answers as JSON: anything but the engine's own result kinds (a file, a stream, a document, a reply with cookies). */
function isPlainData(value: unknown): boolean {
  return !isFile(value) && !isStream(value) && !isJsonText(value) && !isReply(value);
}

function isJsonText(value: unknown): value is JsonText {
  return !!value && typeof value === 'object' && (value as JsonText).kind === 'json';
}
