// The real product in process: the whole manifest, every plugin, the sandbox upstream and an
// in-memory session store, served on a loopback port.
import { testConfig } from '../../engine/config.js';
import type { Config } from '../../engine/types.js';
import { composeApp } from '../../bin/compose.js';
import { serve, type Client } from './http.js';
import type { App } from '../../engine/app.js';
import type { Test } from 'tap';
import { FIXED, type SandboxAdapter } from '../../adapters/upstream/sandbox/index.js';
import { sessionHttp } from './session-http.js';

export interface Product {
  readonly app: App;
  readonly client: Client;
  /** Logs a sandbox account in and returns its session id. */
  login(username?: string, password?: string): Promise<string>;
}

export async function product(config: Partial<Config> = {}): Promise<Product> {
  const app = await composeApp(testConfig(config));
  const client = await serve(app);
  return {
    app,
    client,
    async login(username = 'demo', password = 'demo-password') {
      const reply = await client.request('POST', '/auth/login', { form: { username, password } });
      if (reply.status !== 200) throw new Error(`login ${username} failed: ${reply.status} ${reply.text}`);
      return reply.body as string;
    },
  };
}

/**
 * The product with demo logged in, for the sandbox's HTTP tests: its session over HTTP, and the
 * world and demo's record, which tests use only to pick subjects (their assertions read HTTP).
 */
export async function demoOverHttp(t: Test, config: Partial<Config> = {}) {
  const p = await product(config);
  t.teardown(() => p.client.close());
  const headers = { 'x-session-id': await p.login() };
  const world = (p.app.services.upstream as SandboxAdapter).world;
  return { p, headers, ...sessionHttp(p.client, headers), world, demo: world.users.get(FIXED.demo)! };
}
