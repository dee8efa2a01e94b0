// The guarded by-URL fetcher: http(s) only, every hop's address checked at connect time (see
// guarded-lookup.ts), redirects followed by hand and re-checked, connect and read timeouts, and
// the body streamed to a temp file under a size cap. Nothing is held in memory.
import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import fetch, { type Response } from 'node-fetch';
import { ByteCap, formatBytes } from '../../engine/bytes.js';
import { checkAddress } from './address-guard.js';
import { TransferError } from './errors.js';
import { guardedLookup, systemResolver, type Resolver } from './guarded-lookup.js';
import type { FetchSettings } from './settings.js';

export interface FetchOptions {
  /** Folder the file is written to (the request's private workdir). */
  readonly dir: string;
  readonly settings: FetchSettings;
  /** A lower cap than settings.maxBytes for this one file. */
  readonly maxBytes?: number;
  /** DNS resolution; tests inject a table. */
  readonly resolve?: Resolver;
  readonly signal?: AbortSignal;
}

export interface FetchedFile {
  readonly path: string;
  readonly size: number;
  /** The Content-Type the server claimed (informational: the bytes are sniffed separately). */
  readonly contentType?: string;
  /** The URL the bytes came from, after redirects. */
  readonly url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Fetch `url` into a new file under options.dir, or throw a TransferError that says why not. */
export async function fetchToFile(url: string, options: FetchOptions): Promise<FetchedFile> {
  const hop = new Hop(options);
  try {
    let current = parseHttpUrl(url);
    for (let redirects = 0; ; redirects++) {
      const response = await hop.request(current);
      if (!REDIRECTS.has(response.status)) return await saveBody(response, current, hop, options);
      response.body?.resume();
      current = nextLocation(response, current, redirects, options.settings.maxRedirects);
    }
  } finally {
    hop.close();
  }
}

/** Parse and check the scheme; literal IP hosts are checked here since no lookup runs for them. */
export function parseHttpUrl(raw: string | URL, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new TransferError('scheme', `"${String(raw)}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TransferError('scheme', `only http and https URLs are fetched, not ${url.protocol.replace(/:$/, '')}`);
  }
  return url;
}

function nextLocation(response: Response, current: URL, redirects: number, maxRedirects: number): URL {
  if (redirects >= maxRedirects) throw new TransferError('redirect', `more than ${maxRedirects} redirects`);
  const location = response.headers.get('location');
  if (location === null) throw new TransferError('redirect', `a ${response.status} redirect without a Location`);
  return parseHttpUrl(location, current);
}

/** One fetch's connection state: agents bound to the guarded lookup, timers, the refusal seen. */
class Hop {
  private readonly controller = new AbortController();
  private refusal: TransferError | undefined;
  private timeout: 'connect' | 'read' | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly detach: () => void;

  constructor(private readonly options: FetchOptions) {
    const lookup = guardedLookup(options.settings.allow, options.resolve ?? systemResolver, (err) => {
      this.refusal = err;
    });
    this.agents = { http: new http.Agent({ lookup }), https: new https.Agent({ lookup }) };
    const abort = (): void => this.controller.abort();
    // A signal aborted before the fetch began fires no 'abort' event for a listener added now.
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort);
    this.detach = () => options.signal?.removeEventListener('abort', abort);
  }

  async request(url: URL): Promise<Response> {
    checkLiteralHost(url, this.options.settings);
    this.arm('connect', this.options.settings.connectTimeoutMs);
    try {
      const response = await fetch(url.href, {
        redirect: 'manual',
        signal: this.controller.signal,
        agent: (u: URL) => (u.protocol === 'https:' ? this.agents.https : this.agents.http),
        headers: { 'user-agent': 'socialgate', accept: '*/*' },
      });
      this.disarm();
      return response;
    } catch (err) {
      this.disarm();
      throw this.explain(err, url);
    }
  }

  /** Restart the read timer: called for every chunk, so it measures silence, not total time. */
  arm(kind: 'connect' | 'read', ms: number): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timeout = kind;
      this.controller.abort();
    }, ms);
  }

  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  explain(err: unknown, url: URL): TransferError {
    if (err instanceof TransferError) return err;
    if (this.refusal !== undefined) return this.refusal;
    if (this.timeout === 'connect') return new TransferError('timeout', `no response from ${url.host} within ${this.options.settings.connectTimeoutMs} ms`);
    if (this.timeout === 'read') return new TransferError('timeout', `${url.host} sent nothing for ${this.options.settings.readTimeoutMs} ms`);
    if (this.options.signal?.aborted) return new TransferError('network', `the fetch from ${url.host} was stopped: the request was cancelled`);
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    return new TransferError('network', `${url.host} could not be reached${code ? ` (${code})` : ''}`);
  }

  close(): void {
    this.disarm();
    this.detach();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

function checkLiteralHost(url: URL, settings: FetchSettings): void {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!/^[\d.]+$/.test(host) && !host.includes(':')) return;
  const verdict = checkAddress(host, settings.allow);
  if (!verdict.allowed) throw new TransferError('address', verdict.reason);
}

async function saveBody(response: Response, url: URL, hop: Hop, options: FetchOptions): Promise<FetchedFile> {
  if (!response.ok) {
    response.body?.resume();
    throw new TransferError('status', `${url.host} answered HTTP ${response.status}`);
  }
  const cap = Math.min(options.maxBytes ?? Infinity, options.settings.maxBytes);
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > cap) {
    response.body?.resume();
    throw new TransferError('size', `the file is ${formatBytes(declared)}, over the ${formatBytes(cap)} limit`);
  }
  const file = path.join(options.dir, `fetched-${randomUUID()}`);
  // The read timer restarts on every chunk: a slow but steady source is not a stalled one.
  const counter = new ByteCap(
    cap,
    () => new TransferError('size', `the file is over the ${formatBytes(cap)} limit`),
    () => hop.arm('read', options.settings.readTimeoutMs),
  );
  const out = createWriteStream(file, { flags: 'wx' });
  try {
    hop.arm('read', options.settings.readTimeoutMs);
    if (response.body === null) throw new TransferError('network', 'the response has no body');
    await pipeline(response.body, counter, out);
  } catch (err) {
    // The file can be opened after the pipeline failed (a cap met in the first chunk): removed once
    // the stream has let go of it, or it would be created after its removal and left behind.
    await closedStream(out);
    await rm(file, { force: true });
    throw hop.explain(err, url);
  } finally {
    hop.disarm();
  }
  return { path: file, size: counter.bytes, contentType: response.headers.get('content-type') ?? undefined, url: url.href };
}

/** Resolves once the stream has closed (its file opened and closed again, or never opened). */
function closedStream(stream: WriteStream): Promise<void> {
  if (stream.closed) return Promise.resolve();
  if (!stream.destroyed) stream.destroy();
  return new Promise((resolve) => stream.once('close', () => resolve()));
}
