// Scheduled and deferred writes' tests: a sandbox whose calls are counted by method, one event
// recorder on the background layer, and a wait for a scheduled write to settle.
import { createSandbox } from '../../adapters/upstream/sandbox/index.js';
import type { App } from '../../engine/app.js';
import type { UpstreamAdapter, WorkEvent } from '../../engine/types.js';
import type { Client } from './http.js';

/** A sandbox whose clients push every method they call into `calls`. */
export function countedSandbox(calls: string[], seed = 1): UpstreamAdapter {
  const upstream = createSandbox({ seed });
  return new Proxy(upstream, {
    get(target, prop) {
      if (prop !== 'open') return Reflect.get(target, prop) as unknown;
      return async (options: Parameters<typeof upstream.open>[0]) => {
        const client = await target.open(options);
        return new Proxy(client, {
          get: (c, p) =>
            p === 'call' ? (m: string, k: Record<string, unknown>, o?: unknown) => (calls.push(m), c.call(m, k, o as never)) : (Reflect.get(c, p) as unknown),
        });
      };
    },
  });
}

/** Records every event the app emits (and still emits it to the outbox: webhooks and the stream). */
export function recordEvents(app: App, into: WorkEvent[]): void {
  const work = app.services.work!;
  const outbox = work.events;
  work.events = { emit: (event) => (into.push(event), outbox.emit(event)) };
}

/** Polls a scheduled write until it leaves `scheduled`/`running` (or the time is up); answers its last view. */
export async function settled(http: Client, headers: Record<string, string>, id: string, ms = 8000): Promise<Record<string, unknown>> {
  const until = Date.now() + ms;
  for (;;) {
    const view = (await http.request('GET', '/writes/scheduled/item', { query: { id }, headers })).body as Record<string, unknown>;
    if (!['scheduled', 'running'].includes(String(view.state)) || Date.now() > until) return view;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const count = (calls: readonly string[], method: string): number => calls.filter((m) => m === method).length;
