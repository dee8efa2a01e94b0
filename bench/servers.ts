// Child process for the hot-path benchmark: serves either socialgate or a bare Koa route doing
// the same work (session lookup in memory, one sandbox call, JSON body) on a loopback port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { testConfig } from '../engine/config.js';
import { createSandbox } from '../adapters/upstream/sandbox/index.js';
import { composeApp } from '../bin/compose.js';
import type { UpstreamClient } from '../engine/types.js';

export async function startBench(kind: 'socialgate' | 'bare'): Promise<{ port: number; session: string; path: string }> {
  const upstream = createSandbox();
  const handler = kind === 'socialgate' ? await socialgate(upstream) : await bare(upstream);
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

if (process.argv[2] === 'child') {
  // The runner asks for this process's CPU time around each round.
  process.on('message', () => process.send?.(process.cpuUsage()));
  const started = await startBench(process.argv[3] as 'socialgate' | 'bare');
  process.stdout.write(JSON.stringify(started) + '\n');
}
