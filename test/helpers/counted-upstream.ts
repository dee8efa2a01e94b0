// A sandbox whose platform calls are counted (and, on request, held): what the exactly-once
// tests read to prove a replay or a read-back made no second write.
import type { UpstreamAdapter } from '../../engine/types.js';
import type { SandboxAdapter } from '../../adapters/upstream/sandbox/index.js';

export interface Counted {
  readonly upstream: UpstreamAdapter;
  /** Every method called, in order. */
  readonly calls: string[];
  /** Calls of this method wait for release() (one gate at a time); answers when one arrived. */
  hold(method: string): { arrived: Promise<void>; release(): void };
}

export function countedUpstream(sandbox: SandboxAdapter): Counted {
  const calls: string[] = [];
  let gate: { method: string; arrive: () => void; open: Promise<void> } | undefined;
  const upstream = new Proxy(sandbox, {
    get(target, prop) {
      if (prop !== 'open') return Reflect.get(target, prop) as unknown;
      return async (options: Parameters<typeof sandbox.open>[0]) => {
        const client = await target.open(options);
        const call = async (method: string, kwargs: Record<string, unknown>, opts?: unknown) => {
          calls.push(method);
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
