// Scheduled and deferred writes' tests: one event recorder on the background layer, and a wait for a
// scheduled write to settle (their sandbox's calls are counted by ./counted-upstream.ts).
import type { App } from '../../engine/app.js';
import type { WorkEvent } from '../../engine/types.js';
import type { Client } from './http.js';

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
