// Child process for the hot-path benchmark: serves either socialgate or a bare Koa route doing
// the same work (session lookup in memory, one sandbox call, JSON body) on a loopback port.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { testConfig } from '../engine/config.js';
import { createSandbox } from '../adapters/upstream/sandbox/index.js';
import { composeApp } from '../bin/compose.js';
import type { UpstreamClient } from '../engine/types.js';

export type BenchKind = 'socialgate' | 'bare' | 'node';

export async function startBench(kind: BenchKind): Promise<{ port: number; session: string; path: string }> {
  const upstream = createSandbox();
  const handler = await { socialgate, bare, node }[kind](upstream);
  const server = createServer(handler.callback);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, session: handler.session, path: handler.path };
}

async function socialgate(upstream: ReturnType<typeof createSandbox>) {
  const app = await composeApp(testConfig({ logLevel: 'silent' }), { upstream });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const login = await fetch(`http://127.0.0.1:${port}/auth/login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
  const session = (await login.json()) as string;
  const me = await fetch(`http://127.0.0.1:${port}/account`, { headers: { 'X-Session-ID': session } });
  const pk = ((await me.json()) as { pk: string }).pk;
  server.close();
  return { callback: app.callback(), session, path: `/user?user_id=${pk}` };
}

/** The same work without the engine: header → in-memory session → one upstream call → JSON. */
async function bare(upstream: ReturnType<typeof createSandbox>) {
  const client = await upstream.open({ settings: {} });
  await client.call('login', { username: 'demo', password: 'demo-password', verification_code: '' });
  const settings = await client.exportSettings();
  const sessions = new Map<string, UpstreamClient>([['bench-session', client]]);
  const pk = String((settings.authorization_data as { ds_user_id: string }).ds_user_id);
  const koa = new Koa();
  koa.use(async (ctx) => {
    const session = sessions.get(ctx.get('x-session-id'));
    if (!session || ctx.path !== '/user') {
      ctx.status = 401;
      return;
    }
    const user = await session.call('user_info', { user_id: String(ctx.query.user_id) });
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(user);
  });
  return { callback: koa.callback(), session: 'bench-session', path: `/user?user_id=${pk}` };
}

/** The floor: node:http answering the session's header with the same bytes, computed once. */
async function node(upstream: ReturnType<typeof createSandbox>) {
  const { callback, path } = await bare(upstream);
  const body = await new Promise<string>((resolve) => {
    const server = createServer(callback).listen(0, '127.0.0.1', async () => {
      const reply = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { headers: { 'x-session-id': 'bench-session' } });
      resolve(await reply.text());
      server.close();
    });
  });
  const bytes = Buffer.from(body);
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(bytes.length) };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers['x-session-id'] !== 'bench-session') res.writeHead(401).end();
    else res.writeHead(200, headers).end(bytes);
  };
  return { callback: handler, session: 'bench-session', path };
}

if (process.argv[2] === 'child') {
  // The runner asks for this process's CPU time around each round.
  process.on('message', () => process.send?.(process.cpuUsage()));
  const started = await startBench(process.argv[3] as BenchKind);
  process.stdout.write(JSON.stringify(started) + '\n');
}
