// An upstream wrapper for the auth and store tests: records what every client was opened with and
// every call that crossed the port, measures overlap (per client and overall), adds latency to
// chosen methods, and fails a method once on request.
import type { CallOptions, ClientOptions, RealtimeHandlers, UpstreamAdapter, UpstreamClient, UpstreamError } from '../../engine/types.js';

export interface ProbeCall {
  readonly client: number;
  readonly method: string;
  readonly kwargs: Readonly<Record<string, unknown>>;
  readonly opts?: CallOptions;
  readonly at: number;
}

export interface Probe {
  readonly adapter: UpstreamAdapter;
  readonly opened: ClientOptions[];
  readonly calls: ProbeCall[];
  /** Most calls in flight at once on any one client, and overall. */
  readonly overlap: { perClient: number; total: number };
  /** Milliseconds each call of these methods takes (on top of the wrapped upstream). */
  readonly latency: Map<string, number>;
  failNext(method: string, error: UpstreamError): void;
  count(method: string): number;
}

export function probeUpstream(inner: UpstreamAdapter): Probe {
  const opened: ClientOptions[] = [];
  const calls: ProbeCall[] = [];
  const overlap = { perClient: 0, total: 0 };
  const latency = new Map<string, number>();
  const faults = new Map<string, UpstreamError>();
  const running = new Map<number, number>();
  let total = 0;
  let next = 0;
  const wrap = (client: UpstreamClient, id: number): UpstreamClient => ({
    async call(method, kwargs, opts) {
      calls.push({ client: id, method, kwargs, opts, at: Date.now() });
      running.set(id, (running.get(id) ?? 0) + 1);
      total++;
      overlap.perClient = Math.max(overlap.perClient, running.get(id)!);
      overlap.total = Math.max(overlap.total, total);
      try {
        const delay = latency.get(method);
        if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
        const fault = faults.get(method);
        if (fault) {
          faults.delete(method);
          throw fault;
        }
        return await client.call(method, kwargs, opts);
      } finally {
        running.set(id, running.get(id)! - 1);
        total--;
      }
    },
    exportSettings: () => client.exportSettings(),
    account: () => client.account(),
    close: () => client.close(),
    ...(client.realtime
      ? { realtime: (handlers: RealtimeHandlers) => (calls.push({ client: id, method: '(realtime)', kwargs: {}, at: Date.now() }), client.realtime!(handlers)) }
      : {}),
  });
  // Everything else of the adapter as it is (its library getter, describe, typing, capabilities).
  const open = async (options: ClientOptions) => {
    opened.push(options);
    return wrap(await inner.open(options), ++next);
  };
  const adapter: UpstreamAdapter = new Proxy(inner, { get: (target, name) => (name === 'open' ? open : Reflect.get(target, name, target)) });
  return {
    adapter,
    opened,
    calls,
    overlap,
    latency,
    failNext: (method, error) => void faults.set(method, error),
    count: (method) => calls.filter((c) => c.method === method).length,
  };
}
