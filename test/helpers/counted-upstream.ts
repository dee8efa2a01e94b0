// A sandbox whose platform calls are counted (and, on request, held): what the exactly-once
// tests read to prove a replay or a read-back made no second write.
import type { Test } from 'tap';
import { productParts } from '../../bin/compose.js';
import { createApp, type App } from '../../engine/app.js';
import { testConfig } from '../../engine/config.js';
import { createLogger } from '../../engine/log.js';
import type { UpstreamAdapter } from '../../engine/types.js';
import { createStore } from '../../adapters/store/keyv.js';
import { createSandbox, type SandboxAdapter } from '../../adapters/upstream/sandbox/index.js';
import { serve, type Client } from './http.js';

export const count = (calls: readonly string[], method: string): number => calls.filter((m) => m === method).length;

export interface Counted {
  readonly upstream: UpstreamAdapter;
  /** Every method called, in order. */
  readonly calls: string[];
  /** Every call with its keywords, in order. */
  readonly made: { readonly method: string; readonly kwargs: Readonly<Record<string, unknown>> }[];
  /** Calls of this method wait for release() (one gate at a time); answers when one arrived. */
  hold(method: string): { arrived: Promise<void>; release(): void };
}

/** A sandbox (seed 1 unless given) whose clients push every method they call into `calls` (a new list unless given: one kept across restarts). */
export function countedUpstream(sandbox: SandboxAdapter = createSandbox({ seed: 1 }), calls: string[] = []): Counted {
  const made: Counted['made'] = [];
  let gate: { method: string; arrive: () => void; open: Promise<void> } | undefined;
  const upstream = new Proxy(sandbox, {
    get(target, prop) {
      if (prop !== 'open') return Reflect.get(target, prop) as unknown;
      return async (options: Parameters<typeof sandbox.open>[0]) => {
        const client = await target.open(options);
        const call = async (method: string, kwargs: Record<string, unknown>, opts?: unknown) => {
          calls.push(method);
          made.push({ method, kwargs });
          if (gate && gate.method === method) {
            const waiting = gate;
            gate = undefined;
            waiting.arrive();
            await waiting.open;
          }
          return client.call(method, kwargs, opts as never);
        };
        return new Proxy(client, { get: (c, p) => (p === 'call' ? call : (Reflect.get(c, p) as unknown)) });
      };
    },
  });
  return {
    upstream,
    calls,
    made,
    hold(method) {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const open = new Promise<void>((resolve) => (release = resolve));
      gate = { method, arrive, open };
      return { arrived, release };
    },
  };
}

/** The product on a counted sandbox, served on a free port, with demo logged in; closed at the test's end. */
export async function countedProduct(t: Test, sandbox: SandboxAdapter): Promise<{ app: App; http: Client; counted: Counted; session: string }> {
  const config = testConfig();
  const counted = countedUpstream(sandbox);
  const app = createApp({ config, upstream: counted.upstream, store: await createStore('memory://'), log: createLogger('silent'), ...productParts(config) });
  const http = await serve(app);
  t.teardown(async () => {
    await http.close();
    await app.close();
  });
  const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  return { app, http, counted, session };
}
