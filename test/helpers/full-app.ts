// The real product in process: the whole manifest, every plugin, the sandbox upstream and an
// in-memory session store, served on a loopback port.
import { testConfig } from '../../engine/config.js';
import type { Config } from '../../engine/types.js';
import { composeApp } from '../../bin/compose.js';
import { serve, type Client } from './http.js';
import type { App } from '../../engine/app.js';

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
