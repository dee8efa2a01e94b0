// Child process for the hot-path bench (bench/hotpath.ts): serves one of three servers on a loopback
// port, each answering an authenticated `GET /user?user_id=PK` with the same body bytes:
// - socialgate: the whole product (every route, the sandbox upstream, an in-memory session store);
// - koa: bare Koa + @koa/router, the session looked up in a Map, the same object serialised;
// - node: bare node:http sending the same bytes, computed once (the floor of any server).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { testConfig } from '../engine/config.js';
import { createSandbox } from '../adapters/upstream/sandbox/index.js';
import { composeApp } from '../bin/compose.js';
import { serverTiming } from './server-timing.js';

export type BenchKind = 'socialgate' | 'policy' | 'koa' | 'node';

/** What every kind serves: the path, the session header it wants, and the body socialgate answers. */
export interface Target {
  readonly path: string;
  readonly session: string;
  readonly body: string;
}

export interface Started extends Target {
  readonly port: number;
  /** The `policy` server's second session, whose own preset is `off`: the same process without counting. */
  readonly uncounted?: string;
}

/**
 * Boots socialgate, logs `demo` in and asks for its own record once: the target all three serve.
 * `policy`: the same with the account-safety policy counting every read (limits no bench reaches).
 */
async function socialgate(counted = false): Promise<{ callback: RequestListener; target: Target; uncounted?: string }> {
  const app = await composeApp(testConfig({ logLevel: 'silent', policy: counted ? countedPreset() : 'off' }), { upstream: createSandbox() });
  const callback = app.callback();
  const ask = await listening(callback);
  const login = await fetch(ask('/auth/login'), { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
  const session = (await login.json()) as string;
  const unreachable = JSON.stringify({ read: { minute: 1e9, hour: 1e9, day: 1e9 } });
  if (counted) await fetch(ask('/policy'), { method: 'PATCH', headers: { 'X-Session-ID': session }, body: new URLSearchParams({ limits: unreachable }) });
  const me = await fetch(ask('/account'), { headers: { 'X-Session-ID': session } });
  const path = `/user?user_id=${((await me.json()) as { pk: string }).pk}`;
  const reply = await fetch(ask(path), { headers: { 'X-Session-ID': session } });
  if (reply.status !== 200) throw new Error(`socialgate answered ${reply.status} to ${path}`);
  if (counted && !reply.headers.get('ratelimit')) throw new Error('the policy did not count the bench request');
  const target = { path, session, body: await reply.text() };
  const uncounted = counted ? await uncountedSession(ask, path) : undefined;
  ask.close();
  return { callback, target, uncounted };
}

/**
 * The preset the `policy` server counts under: SOCIALGATE_POLICY (safe, standard or fast; standard
 * when unset). The `socialgate` server is the one with the policy off, in the same alternation.
 */
export function countedPreset(): string {
  const preset = process.env.SOCIALGATE_POLICY || 'standard';
  if (['safe', 'standard', 'fast'].includes(preset)) return preset;
  throw new Error(`SOCIALGATE_POLICY=${preset}: the policy server counts under safe, standard or fast (the socialgate server runs with it off)`);
}

type Ask = ((path: string) => string) & { close(): void };

/** Another session of demo that chose the preset `off` (PATCH /policy): the policy guard runs for it and counts nothing. */
async function uncountedSession(ask: Ask, path: string): Promise<string> {
  const login = await fetch(ask('/auth/login'), { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
  const session = (await login.json()) as string;
  await fetch(ask('/policy'), { method: 'PATCH', headers: { 'X-Session-ID': session }, body: new URLSearchParams({ preset: 'off' }) });
  const reply = await fetch(ask(path), { headers: { 'X-Session-ID': session } });
  if (reply.status !== 200 || reply.headers.get('ratelimit')) throw new Error('the session with the preset off was counted or refused');
  return session;
}

async function listening(callback: RequestListener): Promise<Ask> {
  const server = createServer(callback);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign((path: string) => `http://127.0.0.1:${port}${path}`, { close: () => void server.close() });
}

/** Koa + @koa/router: the session looked up in a Map, the same object serialised per request. */
function koa(target: Target): RequestListener {
  const sessions = new Map<string, { user: unknown }>([[target.session, { user: JSON.parse(target.body) }]]);
  const router = new Router();
  router.get('/user', (ctx) => {
    const session = sessions.get(ctx.get('x-session-id'));
    if (!session) {
      ctx.status = 401;
      return;
    }
    ctx.body = session.user;
  });
  return new Koa().use(router.routes()).callback();
}

/** node:http sending the very same bytes, computed once. */
function node(target: Target): RequestListener {
  const bytes = Buffer.from(target.body);
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(bytes.length) };
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers['x-session-id'] !== target.session) res.writeHead(401).end();
    else res.writeHead(200, headers).end(bytes);
  };
}

/**
 * Starts one server. socialgate finds the target (its session and body); the others are given it,
 * so each serves the same header and bytes without the product loaded beside them.
 */
export async function startBench(kind: BenchKind, given?: Target): Promise<Started & { readonly server: Server }> {
  const product = kind === 'socialgate' || kind === 'policy' ? await socialgate(kind === 'policy') : undefined;
  const target = product?.target ?? given;
  if (!target) throw new Error(`${kind} needs the target socialgate serves`);
  const callback = product?.callback ?? { koa, node }[kind as 'koa' | 'node'](target);
  const server = createServer(callback);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { path: target.path, session: target.session, body: target.body, port, uncounted: product?.uncounted, server };
}

/**
 * With BENCH_PROFILE=dir, a CPU profile of the served requests only (started after the boot, so the
 * world's generation and module loading stay out of it), written to dir when the parent ends it.
 */
async function profiling(): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return async () => undefined;
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return async () => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    writeFileSync(join(dir, `${process.argv[3]}-${process.pid}.cpuprofile`), JSON.stringify(profile));
  };
}

if (process.argv[2] === 'child') {
  const given = process.argv[4] ? (JSON.parse(process.argv[4]) as Target) : undefined;
  const { server, ...started } = await startBench(process.argv[3] as BenchKind, given);
  const stopProfile = await profiling();
  const timing = serverTiming(server);
  // The parent asks for this process's CPU time around each round, for its requests' own times
  // (bench/server-timing.ts), and ends it by message.
  process.on('message', (message) => {
    if (message === 'exit') void stopProfile().then(() => process.exit(0));
    else if (!timing(message)) process.send?.(process.cpuUsage());
  });
  process.stdout.write(JSON.stringify(started) + '\n');
}
